// PJRT's profiler extension: how jax.profiler.trace(dir) records kiln's work.
//
// jaxlib walks a plugin's PJRT_Api.extension_start chain for an extension of
// type PJRT_Extension_Type_Profiler when it loads the plugin
// (jax._src.xla_bridge.register_plugin -> _profiler.register_plugin_profiler),
// without looking at the plugin's API version, and registers the extension's
// PLUGIN_Profiler_Api as one more profiler of every profiling session. A
// session calls create (with its serialized ProfileOptions), start, stop,
// collect_data and destroy; collect_data hands back a serialized
// tensorflow.profiler.XSpace, whose planes jaxlib adds to its own.
//
// kiln's profiler starts kiln's tracer (kiln/support/trace.h) on start, or
// shares the session KILN_TRACE already records, and returns the slices
// between start and stop as the XSpace of kiln/pjrt/xspace.h.
//
// The ABI below is declared field for field from openxla/xla:
// xla/backends/profiler/plugin/profiler_c_api.h (PLUGIN_PROFILER_VERSION 1)
// and xla/pjrt/c/pjrt_c_api_profiler_extension.h (version 1). jaxlib 0.10.2
// checks PLUGIN_Profiler_Api.struct_size against its own (80 bytes) and
// leaves the argument structs' struct_size unset, so kiln reads none of them.
#pragma once

#include "kiln/pjrt/pjrt_abi.h"

extern "C" {

typedef struct PLUGIN_Profiler PLUGIN_Profiler;
typedef struct PLUGIN_Profiler_Error PLUGIN_Profiler_Error;

typedef struct {
  size_t struct_size;
  void* priv;
  PLUGIN_Profiler_Error* error;
} PLUGIN_Profiler_Error_Destroy_Args;
typedef struct {
  size_t struct_size;
  void* priv;
  const PLUGIN_Profiler_Error* error;
  const char* message;  // out, lives as long as the error
  size_t message_size;  // out
} PLUGIN_Profiler_Error_Message_Args;
typedef struct {
  size_t struct_size;
  void* priv;
  const PLUGIN_Profiler_Error* error;
  int code;  // out: an absl::StatusCode
} PLUGIN_Profiler_Error_GetCode_Args;
typedef struct {
  size_t struct_size;
  const char* options;  // a serialized tensorflow.ProfileOptions
  size_t options_size;
  PLUGIN_Profiler* profiler;  // out
} PLUGIN_Profiler_Create_Args;
// Destroy, start and stop take the profiler alone.
typedef struct {
  size_t struct_size;
  PLUGIN_Profiler* profiler;
} PLUGIN_Profiler_Args;
typedef struct {
  size_t struct_size;
  PLUGIN_Profiler* profiler;
  uint8_t* buffer;              // in/out: null asks for the plugin's own buffer
  size_t buffer_size_in_bytes;  // out
} PLUGIN_Profiler_CollectData_Args;

typedef struct {
  size_t struct_size;
  void* priv;
  void (*error_destroy)(PLUGIN_Profiler_Error_Destroy_Args*);
  void (*error_message)(PLUGIN_Profiler_Error_Message_Args*);
  PLUGIN_Profiler_Error* (*error_get_code)(PLUGIN_Profiler_Error_GetCode_Args*);
  PLUGIN_Profiler_Error* (*create)(PLUGIN_Profiler_Create_Args*);
  PLUGIN_Profiler_Error* (*destroy)(PLUGIN_Profiler_Args*);
  PLUGIN_Profiler_Error* (*start)(PLUGIN_Profiler_Args*);
  PLUGIN_Profiler_Error* (*stop)(PLUGIN_Profiler_Args*);
  PLUGIN_Profiler_Error* (*collect_data)(PLUGIN_Profiler_CollectData_Args*);
} PLUGIN_Profiler_Api;

typedef struct {
  PJRT_Extension_Base base;  // type PJRT_Extension_Type_Profiler
  PLUGIN_Profiler_Api* profiler_api;
  int64_t traceme_context_id;  // for the extension's other use, on a call's arguments; unused here
} PJRT_Profiler_Extension;

}  // extern "C"

namespace kiln::pjrt {

// The extension, to link into PJRT_Api.extension_start (its `next` is null).
PJRT_Extension_Base* profilerExtension();

}  // namespace kiln::pjrt
