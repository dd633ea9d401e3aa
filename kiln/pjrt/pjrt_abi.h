// The PJRT C API as jaxlib's plugin loader expects it: kiln's own declaration
// of the ABI of PJRT version 0.93 (see docs/pjrt.md, "The C API version").
//
// Why declare it here: jaxlib ships no header, and the ABI is a fixed layout
// of C structs. Each struct below lists its fields in the order of the spec
// (openxla/xla, xla/pjrt/c/pjrt_c_api.h; its CHANGELOG.md says what each
// minor version added). PJRT grows only by appending: a newer caller passes
// larger `struct_size`s and skips functions past the minor version a plugin
// reports, so a 0.93 plugin loads into newer jaxlibs. Only what kiln's plugin
// reads or writes is declared in full; each function pointer slot of PJRT_Api
// is kept in order.
//
// Plain C layout, no kiln or LLVM includes: the plugin's tests include it too.
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

extern "C" {

inline constexpr int kPjrtApiMajor = 0;
inline constexpr int kPjrtApiMinor = 93;

typedef enum {
  PJRT_Extension_Type_Gpu_Custom_Call = 0,
  PJRT_Extension_Type_Profiler,
  PJRT_Extension_Type_Custom_Partitioner,
  PJRT_Extension_Type_Stream,
  PJRT_Extension_Type_Layouts,
  PJRT_Extension_Type_FFI,
  PJRT_Extension_Type_MemoryDescriptions,
  PJRT_Extension_Type_Triton,
  PJRT_Extension_Type_RawBuffer,
  PJRT_Extension_Type_PhaseCompile,
  PJRT_Extension_Type_Example,
  PJRT_Extension_Type_Unknown,
  PJRT_Extension_Type_CrossHostTransfers,
  PJRT_Extension_Type_ExecutableMetadata,
  PJRT_Extension_Type_Callback,
  PJRT_Extension_Type_HostAllocator,
  PJRT_Extension_Type_TpuTopology,
  PJRT_Extension_Type_TpuExecutable,
  PJRT_Extension_Type_Megascale,
  PJRT_Extension_Type_Shardings,  // 19, since 0.91
} PJRT_Extension_Type;

typedef struct PJRT_Extension_Base {
  size_t struct_size;
  PJRT_Extension_Type type;
  struct PJRT_Extension_Base* next;
} PJRT_Extension_Base;

// Every argument struct starts with these two fields.
#define KILN_PJRT_ARGS_HEADER \
  size_t struct_size;         \
  PJRT_Extension_Base* extension_start

typedef struct PJRT_Api_Version {
  KILN_PJRT_ARGS_HEADER;
  int major_version;
  int minor_version;
} PJRT_Api_Version;

// Opaque handles: kiln defines them in plugin.cpp.
typedef struct PJRT_Error PJRT_Error;
typedef struct PJRT_Event PJRT_Event;
typedef struct PJRT_Client PJRT_Client;
typedef struct PJRT_Device PJRT_Device;
typedef struct PJRT_Memory PJRT_Memory;
typedef struct PJRT_DeviceDescription PJRT_DeviceDescription;
typedef struct PJRT_TopologyDescription PJRT_TopologyDescription;
typedef struct PJRT_Executable PJRT_Executable;
typedef struct PJRT_LoadedExecutable PJRT_LoadedExecutable;
typedef struct PJRT_Buffer PJRT_Buffer;
typedef struct PJRT_ExecuteContext PJRT_ExecuteContext;
typedef struct PJRT_SerializedExecutable PJRT_SerializedExecutable;
typedef struct PJRT_SerializedTopology PJRT_SerializedTopology;
typedef struct PJRT_AsyncHostToDeviceTransferManager PJRT_AsyncHostToDeviceTransferManager;

// ---- Errors -----------------------------------------------------------------

typedef enum {
  PJRT_Error_Code_CANCELLED = 1,
  PJRT_Error_Code_UNKNOWN = 2,
  PJRT_Error_Code_INVALID_ARGUMENT = 3,
  PJRT_Error_Code_DEADLINE_EXCEEDED = 4,
  PJRT_Error_Code_NOT_FOUND = 5,
  PJRT_Error_Code_ALREADY_EXISTS = 6,
  PJRT_Error_Code_PERMISSION_DENIED = 7,
  PJRT_Error_Code_RESOURCE_EXHAUSTED = 8,
  PJRT_Error_Code_FAILED_PRECONDITION = 9,
  PJRT_Error_Code_ABORTED = 10,
  PJRT_Error_Code_OUT_OF_RANGE = 11,
  PJRT_Error_Code_UNIMPLEMENTED = 12,
  PJRT_Error_Code_INTERNAL = 13,
  PJRT_Error_Code_UNAVAILABLE = 14,
  PJRT_Error_Code_DATA_LOSS = 15,
  PJRT_Error_Code_UNAUTHENTICATED = 16,
} PJRT_Error_Code;

typedef struct { KILN_PJRT_ARGS_HEADER; PJRT_Error* error; } PJRT_Error_Destroy_Args;
typedef struct {
  KILN_PJRT_ARGS_HEADER;
  const PJRT_Error* error;
  const char* message;  // out, lives as long as `error`
  size_t message_size;  // out
} PJRT_Error_Message_Args;
typedef struct { KILN_PJRT_ARGS_HEADER; const PJRT_Error* error; PJRT_Error_Code code; } PJRT_Error_GetCode_Args;

typedef PJRT_Error* (*PJRT_CallbackError)(PJRT_Error_Code code, const char* message, size_t message_size);

// ---- Named values (attributes, options) -----------------------------------

typedef enum {
  PJRT_NamedValue_kString = 0,
  PJRT_NamedValue_kInt64,
  PJRT_NamedValue_kInt64List,
  PJRT_NamedValue_kFloat,
  PJRT_NamedValue_kBool,
} PJRT_NamedValue_Type;

typedef struct PJRT_NamedValue {
  KILN_PJRT_ARGS_HEADER;
  const char* name;
  size_t name_size;
  PJRT_NamedValue_Type type;
  union {
    const char* string_value;
    int64_t int64_value;
    const int64_t* int64_array_value;
    float float_value;
    bool bool_value;
  };
  size_t value_size;  // elements of a list or characters of a string; 1 for scalars
} PJRT_NamedValue;

// ---- Plugin -------------------------------------------------------------------

typedef struct { KILN_PJRT_ARGS_HEADER; } PJRT_Plugin_Initialize_Args;
typedef struct {
  KILN_PJRT_ARGS_HEADER;
  const PJRT_NamedValue* attributes;  // out, lives as long as the process
  size_t num_attributes;              // out
} PJRT_Plugin_Attributes_Args;

// ---- Events -------------------------------------------------------------------

typedef void (*PJRT_Event_OnReadyCallback)(PJRT_Error* error, void* user_arg);

typedef struct { KILN_PJRT_ARGS_HEADER; PJRT_Event* event; } PJRT_Event_Destroy_Args;
typedef struct { KILN_PJRT_ARGS_HEADER; PJRT_Event* event; bool is_ready; } PJRT_Event_IsReady_Args;
typedef struct { KILN_PJRT_ARGS_HEADER; PJRT_Event* event; } PJRT_Event_Error_Args;
typedef struct { KILN_PJRT_ARGS_HEADER; PJRT_Event* event; } PJRT_Event_Await_Args;
typedef struct {
  KILN_PJRT_ARGS_HEADER;
  PJRT_Event* event;
  PJRT_Event_OnReadyCallback callback;
  void* user_arg;
} PJRT_Event_OnReady_Args;

// ---- Client -------------------------------------------------------------------

typedef void (*PJRT_KeyValueGetCallback_ValueDeleter)(char* value);
typedef struct {
  KILN_PJRT_ARGS_HEADER;
  const char* key;
  size_t key_size;
  int timeout_in_ms;
  PJRT_CallbackError* callback_error;
  void* user_arg;
  char* value;
  size_t value_size;
  PJRT_KeyValueGetCallback_ValueDeleter value_deleter_callback;
} PJRT_KeyValueGetCallback_Args;
typedef PJRT_Error* (*PJRT_KeyValueGetCallback)(PJRT_KeyValueGetCallback_Args* args);
typedef struct {
  KILN_PJRT_ARGS_HEADER;
  const char* key;
  size_t key_size;
  const char* value;
  size_t value_size;
  PJRT_CallbackError* callback_error;
  void* user_arg;
} PJRT_KeyValuePutCallback_Args;
typedef PJRT_Error* (*PJRT_KeyValuePutCallback)(PJRT_KeyValuePutCallback_Args* args);

typedef struct {
  KILN_PJRT_ARGS_HEADER;
  const PJRT_NamedValue* create_options;
  size_t num_options;
  PJRT_KeyValueGetCallback kv_get_callback;
  void* kv_get_user_arg;
  PJRT_KeyValuePutCallback kv_put_callback;
  void* kv_put_user_arg;
  PJRT_Client* client;  // out
} PJRT_Client_Create_Args;
typedef struct { KILN_PJRT_ARGS_HEADER; PJRT_Client* client; } PJRT_Client_Destroy_Args;
typedef struct {
  KILN_PJRT_ARGS_HEADER;
  PJRT_Client* client;
  const char* platform_name;  // out
  size_t platform_name_size;  // out
} PJRT_Client_PlatformName_Args;
typedef struct { KILN_PJRT_ARGS_HEADER; PJRT_Client* client; int process_index; } PJRT_Client_ProcessIndex_Args;
typedef struct {
  KILN_PJRT_ARGS_HEADER;
  PJRT_Client* client;
  const char* platform_version;  // out
  size_t platform_version_size;  // out
} PJRT_Client_PlatformVersion_Args;
typedef struct {
  KILN_PJRT_ARGS_HEADER;
  PJRT_Client* client;
  PJRT_TopologyDescription* topology;  // out, owned by the client
} PJRT_Client_TopologyDescription_Args;
typedef struct {
  KILN_PJRT_ARGS_HEADER;
  PJRT_Client* client;
  PJRT_Device* const* devices;  // out
  size_t num_devices;           // out
} PJRT_Client_Devices_Args;
typedef PJRT_Client_Devices_Args PJRT_Client_AddressableDevices_Args;  // same layout
typedef struct { KILN_PJRT_ARGS_HEADER; PJRT_Client* client; int id; PJRT_Device* device; } PJRT_Client_LookupDevice_Args;
typedef struct {
  KILN_PJRT_ARGS_HEADER;
  PJRT_Client* client;
  int local_hardware_id;
  PJRT_Device* addressable_device;  // out
} PJRT_Client_LookupAddressableDevice_Args;
typedef struct {
  KILN_PJRT_ARGS_HEADER;
  PJRT_Client* client;
  PJRT_Memory* const* addressable_memories;  // out
  size_t num_addressable_memories;           // out
} PJRT_Client_AddressableMemories_Args;

typedef struct PJRT_Program {
  KILN_PJRT_ARGS_HEADER;
  char* code;
  size_t code_size;
  const char* format;  // "mlir": MLIR bytecode (a portable artifact) or text
  size_t format_size;
} PJRT_Program;

typedef struct {
  KILN_PJRT_ARGS_HEADER;
  PJRT_Client* client;
  const PJRT_Program* program;
  const char* compile_options;  // a serialized xla.CompileOptionsProto
  size_t compile_options_size;
  PJRT_LoadedExecutable* executable;  // out
} PJRT_Client_Compile_Args;
typedef struct {
  KILN_PJRT_ARGS_HEADER;
  PJRT_Client* client;
  int num_replicas;
  int num_partitions;
  size_t default_assignment_size;
  int* default_assignment;  // caller's array; num_replicas * num_partitions written
} PJRT_Client_DefaultDeviceAssignment_Args;

typedef enum {
  PJRT_Buffer_Type_INVALID,
  PJRT_Buffer_Type_PRED,
  PJRT_Buffer_Type_S8,
  PJRT_Buffer_Type_S16,
  PJRT_Buffer_Type_S32,
  PJRT_Buffer_Type_S64,
  PJRT_Buffer_Type_U8,
  PJRT_Buffer_Type_U16,
  PJRT_Buffer_Type_U32,
  PJRT_Buffer_Type_U64,
  PJRT_Buffer_Type_F16,
  PJRT_Buffer_Type_F32,
  PJRT_Buffer_Type_F64,
  PJRT_Buffer_Type_BF16,
  PJRT_Buffer_Type_C64,
  PJRT_Buffer_Type_C128,
  PJRT_Buffer_Type_F8E5M2,
  PJRT_Buffer_Type_F8E4M3FN,
  PJRT_Buffer_Type_F8E4M3B11FNUZ,
  PJRT_Buffer_Type_F8E5M2FNUZ,
  PJRT_Buffer_Type_F8E4M3FNUZ,
  PJRT_Buffer_Type_S4,
  PJRT_Buffer_Type_U4,
  PJRT_Buffer_Type_TOKEN,
  PJRT_Buffer_Type_S2,
  PJRT_Buffer_Type_U2,
  PJRT_Buffer_Type_F8E4M3,
  PJRT_Buffer_Type_F8E3M4,
} PJRT_Buffer_Type;

typedef enum {
  PJRT_HostBufferSemantics_kImmutableOnlyDuringCall,
  PJRT_HostBufferSemantics_kImmutableUntilTransferCompletes,
  PJRT_HostBufferSemantics_kImmutableZeroCopy,
  PJRT_HostBufferSemantics_kMutableZeroCopy,
} PJRT_HostBufferSemantics;

typedef enum {
  PJRT_Buffer_MemoryLayout_Type_Tiled = 0,
  PJRT_Buffer_MemoryLayout_Type_Strides,
} PJRT_Buffer_MemoryLayout_Type;

typedef struct {
  KILN_PJRT_ARGS_HEADER;
  const int64_t* minor_to_major;
  size_t minor_to_major_size;
  const int64_t* tile_dims;
  const size_t* tile_dim_sizes;
  size_t num_tiles;
} PJRT_Buffer_MemoryLayout_Tiled;
typedef struct {
  KILN_PJRT_ARGS_HEADER;
  const int64_t* byte_strides;
  size_t num_byte_strides;
} PJRT_Buffer_MemoryLayout_Strides;
typedef struct PJRT_Buffer_MemoryLayout {
  KILN_PJRT_ARGS_HEADER;
  union {
    PJRT_Buffer_MemoryLayout_Tiled tiled;
    PJRT_Buffer_MemoryLayout_Strides strides;
  };
  PJRT_Buffer_MemoryLayout_Type type;
} PJRT_Buffer_MemoryLayout;

typedef struct {
  KILN_PJRT_ARGS_HEADER;
  PJRT_Client* client;
  const void* data;
  PJRT_Buffer_Type type;
  const int64_t* dims;
  size_t num_dims;
  const int64_t* byte_strides;  // empty: dense, major-to-minor
  size_t num_byte_strides;
  PJRT_HostBufferSemantics host_buffer_semantics;
  PJRT_Device* device;
  PJRT_Memory* memory;  // if set, the destination instead of `device`
  PJRT_Buffer_MemoryLayout* device_layout;
  PJRT_Event* done_with_host_buffer;  // out
  PJRT_Buffer* buffer;                // out
} PJRT_Client_BufferFromHostBuffer_Args;

// ---- Device descriptions, devices, memories --------------------------------

typedef struct { KILN_PJRT_ARGS_HEADER; PJRT_DeviceDescription* device_description; int id; } PJRT_DeviceDescription_Id_Args;
typedef struct {
  KILN_PJRT_ARGS_HEADER;
  PJRT_DeviceDescription* device_description;
  int process_index;
} PJRT_DeviceDescription_ProcessIndex_Args;
typedef struct {
  KILN_PJRT_ARGS_HEADER;
  PJRT_DeviceDescription* device_description;
  size_t num_attributes;               // out
  const PJRT_NamedValue* attributes;   // out
} PJRT_DeviceDescription_Attributes_Args;
// Kind, DebugString and ToString: one string out each, with the same layout.
typedef struct {
  KILN_PJRT_ARGS_HEADER;
  PJRT_DeviceDescription* device_description;
  const char* value;  // out
  size_t value_size;  // out
} PJRT_DeviceDescription_String_Args;

typedef struct {
  KILN_PJRT_ARGS_HEADER;
  PJRT_Device* device;
  PJRT_DeviceDescription* device_description;  // out
} PJRT_Device_GetDescription_Args;
typedef struct { KILN_PJRT_ARGS_HEADER; PJRT_Device* device; bool is_addressable; } PJRT_Device_IsAddressable_Args;
typedef struct { KILN_PJRT_ARGS_HEADER; PJRT_Device* device; int local_hardware_id; } PJRT_Device_LocalHardwareId_Args;
typedef struct {
  KILN_PJRT_ARGS_HEADER;
  PJRT_Device* device;
  PJRT_Memory* const* memories;  // out
  size_t num_memories;           // out
} PJRT_Device_AddressableMemories_Args;
typedef struct { KILN_PJRT_ARGS_HEADER; PJRT_Device* device; PJRT_Memory* memory; } PJRT_Device_DefaultMemory_Args;
typedef struct {
  KILN_PJRT_ARGS_HEADER;
  PJRT_Device* device;
  int64_t bytes_in_use;
  int64_t peak_bytes_in_use;
  bool peak_bytes_in_use_is_set;
  int64_t num_allocs;
  bool num_allocs_is_set;
  int64_t largest_alloc_size;
  bool largest_alloc_size_is_set;
  int64_t bytes_limit;
  bool bytes_limit_is_set;
  int64_t bytes_reserved;
  bool bytes_reserved_is_set;
  int64_t peak_bytes_reserved;
  bool peak_bytes_reserved_is_set;
  int64_t bytes_reservable_limit;
  bool bytes_reservable_limit_is_set;
  int64_t largest_free_block_bytes;
  bool largest_free_block_bytes_is_set;
  int64_t pool_bytes;
  bool pool_bytes_is_set;
  int64_t peak_pool_bytes;
  bool peak_pool_bytes_is_set;
} PJRT_Device_MemoryStats_Args;

typedef struct { KILN_PJRT_ARGS_HEADER; PJRT_Memory* memory; int id; } PJRT_Memory_Id_Args;
// Kind, DebugString and ToString: one string out each, with the same layout.
typedef struct {
  KILN_PJRT_ARGS_HEADER;
  PJRT_Memory* memory;
  const char* value;  // out
  size_t value_size;  // out
} PJRT_Memory_String_Args;
typedef struct { KILN_PJRT_ARGS_HEADER; PJRT_Memory* memory; int kind_id; } PJRT_Memory_Kind_Id_Args;
typedef struct {
  KILN_PJRT_ARGS_HEADER;
  PJRT_Memory* memory;
  PJRT_Device* const* devices;  // out
  size_t num_devices;           // out
} PJRT_Memory_AddressableByDevices_Args;

typedef struct { KILN_PJRT_ARGS_HEADER; PJRT_ExecuteContext* context; } PJRT_ExecuteContext_Args;

// ---- Executables ----------------------------------------------------------------

typedef struct { KILN_PJRT_ARGS_HEADER; PJRT_Executable* executable; } PJRT_Executable_Destroy_Args;
typedef struct { KILN_PJRT_ARGS_HEADER; PJRT_LoadedExecutable* executable; } PJRT_LoadedExecutable_Destroy_Args;
typedef PJRT_LoadedExecutable_Destroy_Args PJRT_LoadedExecutable_Delete_Args;  // same layout
typedef struct {
  KILN_PJRT_ARGS_HEADER;
  PJRT_LoadedExecutable* loaded_executable;
  PJRT_Executable* executable;  // out
} PJRT_LoadedExecutable_GetExecutable_Args;
typedef struct {
  KILN_PJRT_ARGS_HEADER;
  PJRT_Executable* executable;
  const char* value;  // out
  size_t value_size;  // out
} PJRT_Executable_String_Args;  // Name and Fingerprint
typedef struct { KILN_PJRT_ARGS_HEADER; PJRT_Executable* executable; size_t value; } PJRT_Executable_Count_Args;  // NumReplicas, NumPartitions, NumOutputs
typedef struct {
  KILN_PJRT_ARGS_HEADER;
  PJRT_LoadedExecutable* executable;
  PJRT_Device* const* addressable_devices;  // out
  size_t num_addressable_devices;           // out
} PJRT_LoadedExecutable_AddressableDevices_Args;
typedef struct {
  KILN_PJRT_ARGS_HEADER;
  PJRT_Executable* executable;
  PJRT_Program* program;  // out: code (two calls: size, then bytes) and format
} PJRT_Executable_OptimizedProgram_Args;
typedef struct { KILN_PJRT_ARGS_HEADER; PJRT_LoadedExecutable* executable; bool is_deleted; } PJRT_LoadedExecutable_IsDeleted_Args;

typedef struct PJRT_Chunk {
  void* data;
  size_t size;
  void (*deleter)(void* data, void* deleter_arg);
  void* deleter_arg;
} PJRT_Chunk;
typedef struct PJRT_CopyToDeviceStream PJRT_CopyToDeviceStream;
typedef PJRT_Error* (*PJRT_SendCallback)(PJRT_Chunk* chunk, PJRT_CallbackError* callback_error,
                                         size_t total_size_in_bytes, bool done, void* user_arg);
typedef void (*PJRT_RecvCallback)(PJRT_CopyToDeviceStream* stream, void* user_arg);
typedef struct { int64_t channel_id; void* user_arg; PJRT_SendCallback send_callback; } PJRT_SendCallbackInfo;
typedef struct { int64_t channel_id; void* user_arg; PJRT_RecvCallback recv_callback; } PJRT_RecvCallbackInfo;

typedef struct {
  KILN_PJRT_ARGS_HEADER;
  PJRT_SendCallbackInfo** send_callbacks;
  PJRT_RecvCallbackInfo** recv_callbacks;
  size_t num_send_ops;
  size_t num_recv_ops;
  int launch_id;
  const int64_t* non_donatable_input_indices;
  size_t num_non_donatable_input_indices;
  PJRT_ExecuteContext* context;  // kiln reads nothing from it
  const char* call_location;     // 0.76: the Python call's location, null when jaxlib sends none
} PJRT_ExecuteOptions;

typedef struct {
  KILN_PJRT_ARGS_HEADER;
  PJRT_LoadedExecutable* executable;
  PJRT_ExecuteOptions* options;
  PJRT_Buffer* const* const* argument_lists;  // [num_devices][num_args]
  size_t num_devices;
  size_t num_args;
  PJRT_Buffer** const* output_lists;     // [num_devices][num_outputs], the caller's arrays
  PJRT_Event** device_complete_events;   // optional: [num_devices] out
  PJRT_Device* execute_device;           // optional: run on this one device
} PJRT_LoadedExecutable_Execute_Args;

typedef struct {
  KILN_PJRT_ARGS_HEADER;
  PJRT_Executable* executable;
  int64_t size_in_bytes;
} PJRT_Executable_SizeOfGeneratedCodeInBytes_Args;
typedef struct {
  KILN_PJRT_ARGS_HEADER;
  PJRT_Executable* executable;
  size_t num_properties;               // out
  const PJRT_NamedValue* properties;   // out, lives as long as the executable
} PJRT_Executable_GetCostAnalysis_Args;
typedef struct {
  KILN_PJRT_ARGS_HEADER;
  PJRT_Executable* executable;
  int64_t generated_code_size_in_bytes;
  int64_t argument_size_in_bytes;
  int64_t output_size_in_bytes;
  int64_t alias_size_in_bytes;
  int64_t temp_size_in_bytes;
  int64_t host_generated_code_size_in_bytes;
  int64_t host_argument_size_in_bytes;
  int64_t host_output_size_in_bytes;
  int64_t host_alias_size_in_bytes;
  int64_t host_temp_size_in_bytes;
  int64_t peak_memory_in_bytes;  // since 0.72
  int64_t total_size_in_bytes;   // since 0.90
} PJRT_Executable_GetCompiledMemoryStats_Args;
typedef struct {
  KILN_PJRT_ARGS_HEADER;
  PJRT_Executable* executable;
  PJRT_Buffer_Type* output_types;  // out
  size_t num_output_types;         // out
} PJRT_Executable_OutputElementTypes_Args;
typedef struct {
  KILN_PJRT_ARGS_HEADER;
  PJRT_Executable* executable;
  size_t num_outputs;        // out
  const int64_t* dims;       // out: every output's dimensions, concatenated
  const size_t* dim_sizes;   // out: each output's rank
} PJRT_Executable_OutputDimensions_Args;
typedef struct {
  KILN_PJRT_ARGS_HEADER;
  PJRT_Executable* executable;
  size_t num_outputs;
  const char* const* memory_kinds;   // out
  const size_t* memory_kind_sizes;   // out
} PJRT_Executable_OutputMemoryKinds_Args;
typedef struct {
  KILN_PJRT_ARGS_HEADER;
  const PJRT_Executable* executable;
  const char* serialized_bytes;                          // out
  size_t serialized_bytes_size;                          // out
  PJRT_SerializedExecutable* serialized_executable;      // out, backs the bytes
  void (*serialized_executable_deleter)(PJRT_SerializedExecutable* exec);  // out
} PJRT_Executable_Serialize_Args;
typedef struct {
  KILN_PJRT_ARGS_HEADER;
  PJRT_Client* client;
  const char* serialized_executable;
  size_t serialized_executable_size;
  PJRT_LoadedExecutable* loaded_executable;  // out
  const char* overridden_serialized_compile_options;  // since 0.71; null: the serialized ones
  size_t overridden_serialized_compile_options_size;
} PJRT_Executable_DeserializeAndLoad_Args;
typedef struct {
  KILN_PJRT_ARGS_HEADER;
  PJRT_LoadedExecutable* executable;
  const char* value;  // out
  size_t value_size;  // out
} PJRT_LoadedExecutable_Fingerprint_Args;

// ---- Buffers --------------------------------------------------------------------

typedef struct { KILN_PJRT_ARGS_HEADER; PJRT_Buffer* buffer; } PJRT_Buffer_Args;  // Destroy, Delete, external references
typedef struct { KILN_PJRT_ARGS_HEADER; PJRT_Buffer* buffer; PJRT_Buffer_Type type; } PJRT_Buffer_ElementType_Args;
typedef struct {
  KILN_PJRT_ARGS_HEADER;
  PJRT_Buffer* buffer;
  const int64_t* dims;  // out
  size_t num_dims;      // out
} PJRT_Buffer_Dimensions_Args;  // Dimensions and UnpaddedDimensions
typedef struct {
  KILN_PJRT_ARGS_HEADER;
  PJRT_Buffer* buffer;
  const size_t* dynamic_dim_indices;  // out
  size_t num_dynamic_dims;            // out
} PJRT_Buffer_DynamicDimensionIndices_Args;
typedef struct {
  KILN_PJRT_ARGS_HEADER;
  PJRT_Buffer* buffer;
  PJRT_Buffer_MemoryLayout layout;  // out
} PJRT_Buffer_GetMemoryLayout_Args;
typedef struct {
  KILN_PJRT_ARGS_HEADER;
  PJRT_Buffer* src;
  PJRT_Buffer_MemoryLayout* host_layout;  // optional
  void* dst;        // null: ask for the size
  size_t dst_size;  // in/out
  PJRT_Event* event;  // out
} PJRT_Buffer_ToHostBuffer_Args;
typedef struct {
  KILN_PJRT_ARGS_HEADER;
  PJRT_Buffer* buffer;
  size_t on_device_size_in_bytes;
} PJRT_Buffer_OnDeviceSizeInBytes_Args;
typedef struct { KILN_PJRT_ARGS_HEADER; PJRT_Buffer* buffer; bool value; } PJRT_Buffer_Bool_Args;  // IsDeleted, IsOnCpu
typedef struct {
  KILN_PJRT_ARGS_HEADER;
  PJRT_Buffer* buffer;
  void* dst;
  int64_t offset;
  int64_t transfer_size;
  PJRT_Event* event;  // out
} PJRT_Buffer_CopyRawToHost_Args;
typedef struct {
  KILN_PJRT_ARGS_HEADER;
  PJRT_Buffer* buffer;
  PJRT_Device* dst_device;
  PJRT_Buffer* dst_buffer;  // out
} PJRT_Buffer_CopyToDevice_Args;
typedef struct {
  KILN_PJRT_ARGS_HEADER;
  PJRT_Buffer* buffer;
  PJRT_Memory* dst_memory;
  PJRT_Buffer* dst_buffer;  // out
} PJRT_Buffer_CopyToMemory_Args;
typedef struct { KILN_PJRT_ARGS_HEADER; PJRT_Buffer* buffer; PJRT_Device* device; } PJRT_Buffer_Device_Args;
typedef struct { KILN_PJRT_ARGS_HEADER; PJRT_Buffer* buffer; PJRT_Memory* memory; } PJRT_Buffer_Memory_Args;
typedef struct { KILN_PJRT_ARGS_HEADER; PJRT_Buffer* buffer; PJRT_Event* event; } PJRT_Buffer_ReadyEvent_Args;
typedef struct { KILN_PJRT_ARGS_HEADER; PJRT_Buffer* buffer; uintptr_t buffer_pointer; } PJRT_Buffer_UnsafePointer_Args;
typedef struct {
  KILN_PJRT_ARGS_HEADER;
  PJRT_Buffer* buffer;
  void* device_memory_ptr;
} PJRT_Buffer_OpaqueDeviceMemoryDataPointer_Args;

// ---- Asynchronous host-to-device transfers ---------------------------------------

typedef struct {
  KILN_PJRT_ARGS_HEADER;
  const int64_t* dims;
  size_t num_dims;
  PJRT_Buffer_Type element_type;
} PJRT_ShapeSpec;
typedef struct {
  KILN_PJRT_ARGS_HEADER;
  PJRT_Client* client;
  PJRT_ShapeSpec* shape_specs;
  size_t num_shape_specs;
  PJRT_Buffer_MemoryLayout** device_layouts;  // optional, one per shape (each may be null)
  size_t num_device_layouts;
  PJRT_Memory* memory;
  PJRT_AsyncHostToDeviceTransferManager* transfer_manager;  // out
} PJRT_Client_CreateBuffersForAsyncHostToDevice_Args;
typedef struct {
  KILN_PJRT_ARGS_HEADER;
  PJRT_AsyncHostToDeviceTransferManager* transfer_manager;
} PJRT_AsyncHostToDeviceTransferManager_Destroy_Args;
typedef struct {
  KILN_PJRT_ARGS_HEADER;
  PJRT_AsyncHostToDeviceTransferManager* transfer_manager;
  int buffer_index;
  const void* data;
  int64_t offset;
  int64_t transfer_size;
  bool is_last_transfer;
  PJRT_Event* done_with_h2d_transfer;  // out
} PJRT_AsyncHostToDeviceTransferManager_TransferData_Args;
typedef struct {
  KILN_PJRT_ARGS_HEADER;
  PJRT_AsyncHostToDeviceTransferManager* transfer_manager;
  int buffer_index;
  PJRT_Buffer* buffer_out;  // out
} PJRT_AsyncHostToDeviceTransferManager_RetrieveBuffer_Args;
typedef struct {
  KILN_PJRT_ARGS_HEADER;
  PJRT_AsyncHostToDeviceTransferManager* transfer_manager;
  PJRT_Device* device_out;  // out
} PJRT_AsyncHostToDeviceTransferManager_Device_Args;
typedef struct {
  KILN_PJRT_ARGS_HEADER;
  PJRT_AsyncHostToDeviceTransferManager* transfer_manager;
  size_t buffer_count;  // out
} PJRT_AsyncHostToDeviceTransferManager_BufferCount_Args;
typedef struct {
  KILN_PJRT_ARGS_HEADER;
  PJRT_AsyncHostToDeviceTransferManager* transfer_manager;
  int buffer_index;
  size_t buffer_size;  // out
} PJRT_AsyncHostToDeviceTransferManager_BufferSize_Args;
typedef struct {
  KILN_PJRT_ARGS_HEADER;
  PJRT_AsyncHostToDeviceTransferManager* transfer_manager;
  int buffer_index;
  PJRT_Error_Code error_code;
  const char* error_message;
  size_t error_message_size;
} PJRT_AsyncHostToDeviceTransferManager_SetBufferError_Args;
typedef struct {
  KILN_PJRT_ARGS_HEADER;
  PJRT_AsyncHostToDeviceTransferManager* transfer_manager;
  const PJRT_NamedValue* transfer_metadata;
  size_t num_metadata;
} PJRT_AsyncHostToDeviceTransferManager_AddMetadata_Args;
typedef struct {  // 0.83
  KILN_PJRT_ARGS_HEADER;
  PJRT_AsyncHostToDeviceTransferManager* transfer_manager;
  int buffer_index;
  const void* data;
  const int64_t* shape_dims;
  size_t shape_num_dims;
  PJRT_Buffer_Type shape_element_type;
  PJRT_Buffer_MemoryLayout* shape_layout;
  PJRT_Event* done_with_h2d_transfer;  // out
} PJRT_AsyncHostToDeviceTransferManager_TransferLiteral_Args;

// ---- Topology -------------------------------------------------------------------

typedef struct {
  KILN_PJRT_ARGS_HEADER;
  const char* topology_name;
  size_t topology_name_size;
  const PJRT_NamedValue* create_options;
  size_t num_options;
  PJRT_TopologyDescription* topology;  // out
} PJRT_TopologyDescription_Create_Args;
typedef struct { KILN_PJRT_ARGS_HEADER; PJRT_TopologyDescription* topology; } PJRT_TopologyDescription_Destroy_Args;
typedef struct {
  KILN_PJRT_ARGS_HEADER;
  PJRT_TopologyDescription* topology;
  const char* value;  // out
  size_t value_size;  // out
} PJRT_TopologyDescription_String_Args;  // PlatformName and PlatformVersion
typedef struct {
  KILN_PJRT_ARGS_HEADER;
  PJRT_TopologyDescription* topology;
  PJRT_DeviceDescription* const* descriptions;  // out
  size_t num_descriptions;                      // out
} PJRT_TopologyDescription_GetDeviceDescriptions_Args;
typedef struct {
  KILN_PJRT_ARGS_HEADER;
  PJRT_TopologyDescription* topology;
  const char* serialized_bytes;
  size_t serialized_bytes_size;
  PJRT_SerializedTopology* serialized_topology;
  void (*serialized_topology_deleter)(PJRT_SerializedTopology* serialized_topology);
} PJRT_TopologyDescription_Serialize_Args;
typedef struct {  // 0.75
  KILN_PJRT_ARGS_HEADER;
  const char* serialized_topology;
  size_t serialized_topology_size;
  PJRT_TopologyDescription* topology;  // out, the caller destroys it
} PJRT_TopologyDescription_Deserialize_Args;
typedef struct {
  KILN_PJRT_ARGS_HEADER;
  PJRT_TopologyDescription* topology;
  const PJRT_NamedValue* attributes;  // out
  size_t num_attributes;              // out
} PJRT_TopologyDescription_Attributes_Args;
typedef struct {
  KILN_PJRT_ARGS_HEADER;
  const PJRT_TopologyDescription* topology;
  const PJRT_Program* program;
  const char* compile_options;
  size_t compile_options_size;
  PJRT_Client* client;
  PJRT_Executable* executable;  // out
} PJRT_Compile_Args;

// ---- Past 0.60: what kiln's 0.93 plugin implements of the later additions --

typedef struct {
  KILN_PJRT_ARGS_HEADER;
  PJRT_Client* client;
  const void* process_infos;  // PJRT_ProcessInfo[]: each process's state, unread by kiln
  size_t num_process_infos;
} PJRT_Client_UpdateGlobalProcessInfo_Args;  // 0.73

typedef struct PJRT_DeviceAssignmentSerialized PJRT_DeviceAssignmentSerialized;
typedef struct {
  KILN_PJRT_ARGS_HEADER;
  PJRT_LoadedExecutable* executable;
  const char* serialized_bytes;  // out: an xla.DeviceAssignmentProto
  size_t serialized_bytes_size;  // out
  PJRT_DeviceAssignmentSerialized* serialized_device_assignment;                          // out, backs the bytes
  void (*serialized_device_assignment_deleter)(PJRT_DeviceAssignmentSerialized* da);  // out
} PJRT_LoadedExecutable_GetDeviceAssignment_Args;  // 0.79

typedef struct PJRT_AsyncTrackingEvent PJRT_AsyncTrackingEvent;
typedef struct {
  KILN_PJRT_ARGS_HEADER;
  PJRT_Device* device;
  const char* description;
  size_t description_size;
  PJRT_AsyncTrackingEvent* event;  // out; null: none
} PJRT_Device_CreateAsyncTrackingEvent_Args;  // 0.86
typedef struct { KILN_PJRT_ARGS_HEADER; PJRT_AsyncTrackingEvent* event; } PJRT_AsyncTrackingEvent_Destroy_Args;

typedef struct PJRT_SerializedCompileOptions PJRT_SerializedCompileOptions;
typedef struct {
  KILN_PJRT_ARGS_HEADER;
  PJRT_Executable* executable;
  const char* serialized_bytes;  // out: an xla.CompileOptionsProto
  size_t serialized_bytes_size;  // out
  PJRT_SerializedCompileOptions* serialized_compile_options;                        // out, backs the bytes
  void (*serialized_compile_options_deleter)(PJRT_SerializedCompileOptions* options);  // out
} PJRT_Executable_GetCompileOptions_Args;  // 0.87

typedef struct { KILN_PJRT_ARGS_HEADER; PJRT_Event* event; } PJRT_Event_Create_Args;  // 0.89
typedef struct {
  KILN_PJRT_ARGS_HEADER;
  PJRT_Event* event;  // one PJRT_Event_Create made
  PJRT_Error_Code error_code;
  const char* error_message;
  size_t error_message_size;
} PJRT_Event_Set_Args;

typedef struct PJRT_Device_Attributes PJRT_Device_Attributes;
typedef struct {
  KILN_PJRT_ARGS_HEADER;
  PJRT_Device* device;
  const PJRT_NamedValue* attributes;                                      // out
  size_t num_attributes;                                                  // out
  PJRT_Device_Attributes* device_attributes;                              // out, backs them
  void (*attributes_deleter)(PJRT_Device_Attributes* device_attributes);  // out
} PJRT_Device_GetAttributes_Args;  // 0.92

// Functions kiln does not implement share one signature: each answers
// UNIMPLEMENTED without reading its arguments.
typedef PJRT_Error* (*PJRT_Unimplemented_Function)(void* args);

// The shardings extension (PJRT_Extension_Type_Shardings, 0.91): the
// shardings a compiled program's parameters and results got, each a
// serialized xla.OpSharding.
typedef struct {
  KILN_PJRT_ARGS_HEADER;
  PJRT_Executable* executable;
  size_t num_shardings;              // out: parameters or outputs
  const char* const* shardings;      // out, lives as long as `executable`; null: unknown
  const size_t* sharding_sizes;      // out
} PJRT_Shardings_Args;
typedef struct PJRT_Shardings_Extension {
  PJRT_Extension_Base base;
  PJRT_Error* (*PJRT_Shardings_PJRT_Executable_ParameterShardings)(PJRT_Shardings_Args*);
  PJRT_Error* (*PJRT_Shardings_PJRT_Executable_OutputShardings)(PJRT_Shardings_Args*);
} PJRT_Shardings_Extension;

// The layouts extension (PJRT_Extension_Type_Layouts; its executable
// functions since 0.81 and 0.93): the memory layouts of buffers and of a
// compiled program's parameters and results, each serialized as HLO's
// layout text ("{1,0}"). Offsets as jaxlib 0.10.2 reads them.
typedef struct PJRT_Layouts_MemoryLayout PJRT_Layouts_MemoryLayout;
typedef struct PJRT_Layouts_SerializedLayout PJRT_Layouts_SerializedLayout;
typedef struct { KILN_PJRT_ARGS_HEADER; PJRT_Layouts_MemoryLayout* layout; } PJRT_Layouts_MemoryLayout_Destroy_Args;
typedef struct {
  KILN_PJRT_ARGS_HEADER;
  PJRT_Layouts_MemoryLayout* layout;
  const char* serialized_bytes;                                                   // out
  size_t serialized_bytes_size;                                                   // out
  PJRT_Layouts_SerializedLayout* serialized_layout;                               // out, backs the bytes
  void (*serialized_layout_deleter)(PJRT_Layouts_SerializedLayout* serialized);  // out
} PJRT_Layouts_MemoryLayout_Serialize_Args;
typedef struct {
  KILN_PJRT_ARGS_HEADER;
  PJRT_Client* client;
  PJRT_Buffer_Type type;
  const int64_t* dims;
  size_t num_dims;
  PJRT_Layouts_MemoryLayout* layout;  // out, the caller destroys it
} PJRT_Layouts_PJRT_Client_GetDefaultLayout_Args;
typedef struct {
  KILN_PJRT_ARGS_HEADER;
  PJRT_Buffer* buffer;
  PJRT_Layouts_MemoryLayout* layout;  // out, the caller destroys it
} PJRT_Layouts_PJRT_Buffer_MemoryLayout_Args;
typedef struct {
  KILN_PJRT_ARGS_HEADER;
  PJRT_Executable* executable;
  size_t num_layouts;                   // out: outputs or parameters
  PJRT_Layouts_MemoryLayout** layouts;  // out, live as long as `executable`
} PJRT_Layouts_PJRT_Executable_Layouts_Args;
typedef struct PJRT_Layouts_Extension {
  PJRT_Extension_Base base;
  PJRT_Error* (*PJRT_Layouts_MemoryLayout_Destroy)(PJRT_Layouts_MemoryLayout_Destroy_Args*);
  PJRT_Error* (*PJRT_Layouts_MemoryLayout_Serialize)(PJRT_Layouts_MemoryLayout_Serialize_Args*);
  PJRT_Error* (*PJRT_Layouts_PJRT_Client_GetDefaultLayout)(PJRT_Layouts_PJRT_Client_GetDefaultLayout_Args*);
  PJRT_Error* (*PJRT_Layouts_PJRT_Buffer_MemoryLayout)(PJRT_Layouts_PJRT_Buffer_MemoryLayout_Args*);
  void* PJRT_Layouts_PJRT_Topology_GetDefaultLayout;  // null: no compiling for a topology
  PJRT_Error* (*PJRT_Layouts_PJRT_Executable_GetOutputLayouts)(PJRT_Layouts_PJRT_Executable_Layouts_Args*);
  PJRT_Error* (*PJRT_Layouts_PJRT_Executable_GetParameterLayouts)(PJRT_Layouts_PJRT_Executable_Layouts_Args*);
} PJRT_Layouts_Extension;

// ---- The function table -----------------------------------------------------------
// One slot per function, in the spec's order. A plugin reporting 0.93 must
// fill every slot up to 0.93's last: jaxlib calls a function its version
// check allows without looking for null (docs/pjrt.md). Slots kiln does not
// implement answer UNIMPLEMENTED (PJRT_Unimplemented_Function).


typedef struct PJRT_Api {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Api_Version pjrt_api_version;

  void (*PJRT_Error_Destroy)(PJRT_Error_Destroy_Args*);
  void (*PJRT_Error_Message)(PJRT_Error_Message_Args*);
  PJRT_Error* (*PJRT_Error_GetCode)(PJRT_Error_GetCode_Args*);

  PJRT_Error* (*PJRT_Plugin_Initialize)(PJRT_Plugin_Initialize_Args*);
  PJRT_Error* (*PJRT_Plugin_Attributes)(PJRT_Plugin_Attributes_Args*);

  PJRT_Error* (*PJRT_Event_Destroy)(PJRT_Event_Destroy_Args*);
  PJRT_Error* (*PJRT_Event_IsReady)(PJRT_Event_IsReady_Args*);
  PJRT_Error* (*PJRT_Event_Error)(PJRT_Event_Error_Args*);
  PJRT_Error* (*PJRT_Event_Await)(PJRT_Event_Await_Args*);
  PJRT_Error* (*PJRT_Event_OnReady)(PJRT_Event_OnReady_Args*);

  PJRT_Error* (*PJRT_Client_Create)(PJRT_Client_Create_Args*);
  PJRT_Error* (*PJRT_Client_Destroy)(PJRT_Client_Destroy_Args*);
  PJRT_Error* (*PJRT_Client_PlatformName)(PJRT_Client_PlatformName_Args*);
  PJRT_Error* (*PJRT_Client_ProcessIndex)(PJRT_Client_ProcessIndex_Args*);
  PJRT_Error* (*PJRT_Client_PlatformVersion)(PJRT_Client_PlatformVersion_Args*);
  PJRT_Error* (*PJRT_Client_Devices)(PJRT_Client_Devices_Args*);
  PJRT_Error* (*PJRT_Client_AddressableDevices)(PJRT_Client_AddressableDevices_Args*);
  PJRT_Error* (*PJRT_Client_LookupDevice)(PJRT_Client_LookupDevice_Args*);
  PJRT_Error* (*PJRT_Client_LookupAddressableDevice)(PJRT_Client_LookupAddressableDevice_Args*);
  PJRT_Error* (*PJRT_Client_AddressableMemories)(PJRT_Client_AddressableMemories_Args*);
  PJRT_Error* (*PJRT_Client_Compile)(PJRT_Client_Compile_Args*);
  PJRT_Error* (*PJRT_Client_DefaultDeviceAssignment)(PJRT_Client_DefaultDeviceAssignment_Args*);
  PJRT_Error* (*PJRT_Client_BufferFromHostBuffer)(PJRT_Client_BufferFromHostBuffer_Args*);

  PJRT_Error* (*PJRT_DeviceDescription_Id)(PJRT_DeviceDescription_Id_Args*);
  PJRT_Error* (*PJRT_DeviceDescription_ProcessIndex)(PJRT_DeviceDescription_ProcessIndex_Args*);
  PJRT_Error* (*PJRT_DeviceDescription_Attributes)(PJRT_DeviceDescription_Attributes_Args*);
  PJRT_Error* (*PJRT_DeviceDescription_Kind)(PJRT_DeviceDescription_String_Args*);
  PJRT_Error* (*PJRT_DeviceDescription_DebugString)(PJRT_DeviceDescription_String_Args*);
  PJRT_Error* (*PJRT_DeviceDescription_ToString)(PJRT_DeviceDescription_String_Args*);

  PJRT_Error* (*PJRT_Device_GetDescription)(PJRT_Device_GetDescription_Args*);
  PJRT_Error* (*PJRT_Device_IsAddressable)(PJRT_Device_IsAddressable_Args*);
  PJRT_Error* (*PJRT_Device_LocalHardwareId)(PJRT_Device_LocalHardwareId_Args*);
  PJRT_Error* (*PJRT_Device_AddressableMemories)(PJRT_Device_AddressableMemories_Args*);
  PJRT_Error* (*PJRT_Device_DefaultMemory)(PJRT_Device_DefaultMemory_Args*);
  PJRT_Error* (*PJRT_Device_MemoryStats)(PJRT_Device_MemoryStats_Args*);

  PJRT_Error* (*PJRT_Memory_Id)(PJRT_Memory_Id_Args*);
  PJRT_Error* (*PJRT_Memory_Kind)(PJRT_Memory_String_Args*);
  PJRT_Error* (*PJRT_Memory_DebugString)(PJRT_Memory_String_Args*);
  PJRT_Error* (*PJRT_Memory_ToString)(PJRT_Memory_String_Args*);
  PJRT_Error* (*PJRT_Memory_AddressableByDevices)(PJRT_Memory_AddressableByDevices_Args*);

  PJRT_Error* (*PJRT_Executable_Destroy)(PJRT_Executable_Destroy_Args*);
  PJRT_Error* (*PJRT_Executable_Name)(PJRT_Executable_String_Args*);
  PJRT_Error* (*PJRT_Executable_NumReplicas)(PJRT_Executable_Count_Args*);
  PJRT_Error* (*PJRT_Executable_NumPartitions)(PJRT_Executable_Count_Args*);
  PJRT_Error* (*PJRT_Executable_NumOutputs)(PJRT_Executable_Count_Args*);
  PJRT_Error* (*PJRT_Executable_SizeOfGeneratedCodeInBytes)(PJRT_Executable_SizeOfGeneratedCodeInBytes_Args*);
  PJRT_Error* (*PJRT_Executable_GetCostAnalysis)(PJRT_Executable_GetCostAnalysis_Args*);
  PJRT_Error* (*PJRT_Executable_OutputMemoryKinds)(PJRT_Executable_OutputMemoryKinds_Args*);
  PJRT_Error* (*PJRT_Executable_OptimizedProgram)(PJRT_Executable_OptimizedProgram_Args*);
  PJRT_Error* (*PJRT_Executable_Serialize)(PJRT_Executable_Serialize_Args*);

  PJRT_Error* (*PJRT_LoadedExecutable_Destroy)(PJRT_LoadedExecutable_Destroy_Args*);
  PJRT_Error* (*PJRT_LoadedExecutable_GetExecutable)(PJRT_LoadedExecutable_GetExecutable_Args*);
  PJRT_Error* (*PJRT_LoadedExecutable_AddressableDevices)(PJRT_LoadedExecutable_AddressableDevices_Args*);
  PJRT_Error* (*PJRT_LoadedExecutable_Delete)(PJRT_LoadedExecutable_Delete_Args*);
  PJRT_Error* (*PJRT_LoadedExecutable_IsDeleted)(PJRT_LoadedExecutable_IsDeleted_Args*);
  PJRT_Error* (*PJRT_LoadedExecutable_Execute)(PJRT_LoadedExecutable_Execute_Args*);
  PJRT_Error* (*PJRT_Executable_DeserializeAndLoad)(PJRT_Executable_DeserializeAndLoad_Args*);
  PJRT_Error* (*PJRT_LoadedExecutable_Fingerprint)(PJRT_LoadedExecutable_Fingerprint_Args*);

  PJRT_Error* (*PJRT_Buffer_Destroy)(PJRT_Buffer_Args*);
  PJRT_Error* (*PJRT_Buffer_ElementType)(PJRT_Buffer_ElementType_Args*);
  PJRT_Error* (*PJRT_Buffer_Dimensions)(PJRT_Buffer_Dimensions_Args*);
  PJRT_Error* (*PJRT_Buffer_UnpaddedDimensions)(PJRT_Buffer_Dimensions_Args*);
  PJRT_Error* (*PJRT_Buffer_DynamicDimensionIndices)(PJRT_Buffer_DynamicDimensionIndices_Args*);
  PJRT_Error* (*PJRT_Buffer_GetMemoryLayout)(PJRT_Buffer_GetMemoryLayout_Args*);
  PJRT_Error* (*PJRT_Buffer_OnDeviceSizeInBytes)(PJRT_Buffer_OnDeviceSizeInBytes_Args*);
  PJRT_Error* (*PJRT_Buffer_Device)(PJRT_Buffer_Device_Args*);
  PJRT_Error* (*PJRT_Buffer_Memory)(PJRT_Buffer_Memory_Args*);
  PJRT_Error* (*PJRT_Buffer_Delete)(PJRT_Buffer_Args*);
  PJRT_Error* (*PJRT_Buffer_IsDeleted)(PJRT_Buffer_Bool_Args*);
  PJRT_Error* (*PJRT_Buffer_CopyToDevice)(PJRT_Buffer_CopyToDevice_Args*);
  PJRT_Error* (*PJRT_Buffer_ToHostBuffer)(PJRT_Buffer_ToHostBuffer_Args*);
  PJRT_Error* (*PJRT_Buffer_IsOnCpu)(PJRT_Buffer_Bool_Args*);
  PJRT_Error* (*PJRT_Buffer_ReadyEvent)(PJRT_Buffer_ReadyEvent_Args*);
  PJRT_Error* (*PJRT_Buffer_UnsafePointer)(PJRT_Buffer_UnsafePointer_Args*);
  PJRT_Error* (*PJRT_Buffer_IncreaseExternalReferenceCount)(PJRT_Buffer_Args*);
  PJRT_Error* (*PJRT_Buffer_DecreaseExternalReferenceCount)(PJRT_Buffer_Args*);
  PJRT_Error* (*PJRT_Buffer_OpaqueDeviceMemoryDataPointer)(PJRT_Buffer_OpaqueDeviceMemoryDataPointer_Args*);

  PJRT_Unimplemented_Function PJRT_CopyToDeviceStream_Destroy;  // no send/recv callbacks
  PJRT_Unimplemented_Function PJRT_CopyToDeviceStream_AddChunk;
  PJRT_Unimplemented_Function PJRT_CopyToDeviceStream_TotalBytes;
  PJRT_Unimplemented_Function PJRT_CopyToDeviceStream_GranuleSize;
  PJRT_Unimplemented_Function PJRT_CopyToDeviceStream_CurrentBytes;

  PJRT_Error* (*PJRT_TopologyDescription_Create)(PJRT_TopologyDescription_Create_Args*);
  PJRT_Error* (*PJRT_TopologyDescription_Destroy)(PJRT_TopologyDescription_Destroy_Args*);
  PJRT_Error* (*PJRT_TopologyDescription_PlatformName)(PJRT_TopologyDescription_String_Args*);
  PJRT_Error* (*PJRT_TopologyDescription_PlatformVersion)(PJRT_TopologyDescription_String_Args*);
  PJRT_Error* (*PJRT_TopologyDescription_GetDeviceDescriptions)(PJRT_TopologyDescription_GetDeviceDescriptions_Args*);
  PJRT_Error* (*PJRT_TopologyDescription_Serialize)(PJRT_TopologyDescription_Serialize_Args*);
  PJRT_Error* (*PJRT_TopologyDescription_Attributes)(PJRT_TopologyDescription_Attributes_Args*);

  PJRT_Error* (*PJRT_Compile)(PJRT_Compile_Args*);

  PJRT_Error* (*PJRT_Executable_OutputElementTypes)(PJRT_Executable_OutputElementTypes_Args*);
  PJRT_Error* (*PJRT_Executable_OutputDimensions)(PJRT_Executable_OutputDimensions_Args*);
  PJRT_Error* (*PJRT_Buffer_CopyToMemory)(PJRT_Buffer_CopyToMemory_Args*);
  PJRT_Unimplemented_Function PJRT_Client_CreateViewOfDeviceBuffer;
  PJRT_Error* (*PJRT_Executable_Fingerprint)(PJRT_Executable_String_Args*);
  PJRT_Error* (*PJRT_Client_TopologyDescription)(PJRT_Client_TopologyDescription_Args*);
  PJRT_Error* (*PJRT_Executable_GetCompiledMemoryStats)(PJRT_Executable_GetCompiledMemoryStats_Args*);
  PJRT_Error* (*PJRT_Memory_Kind_Id)(PJRT_Memory_Kind_Id_Args*);
  PJRT_Error* (*PJRT_ExecuteContext_Create)(PJRT_ExecuteContext_Args*);
  PJRT_Error* (*PJRT_ExecuteContext_Destroy)(PJRT_ExecuteContext_Args*);
  PJRT_Error* (*PJRT_Buffer_CopyRawToHost)(PJRT_Buffer_CopyRawToHost_Args*);
  PJRT_Error* (*PJRT_AsyncHostToDeviceTransferManager_Destroy)(PJRT_AsyncHostToDeviceTransferManager_Destroy_Args*);
  PJRT_Error* (*PJRT_AsyncHostToDeviceTransferManager_TransferData)(
      PJRT_AsyncHostToDeviceTransferManager_TransferData_Args*);
  PJRT_Error* (*PJRT_Client_CreateBuffersForAsyncHostToDevice)(
      PJRT_Client_CreateBuffersForAsyncHostToDevice_Args*);  // the table of 0.60 ends here

  PJRT_Error* (*PJRT_AsyncHostToDeviceTransferManager_RetrieveBuffer)(
      PJRT_AsyncHostToDeviceTransferManager_RetrieveBuffer_Args*);  // 0.62
  PJRT_Error* (*PJRT_AsyncHostToDeviceTransferManager_Device)(PJRT_AsyncHostToDeviceTransferManager_Device_Args*);
  PJRT_Error* (*PJRT_AsyncHostToDeviceTransferManager_BufferCount)(
      PJRT_AsyncHostToDeviceTransferManager_BufferCount_Args*);
  PJRT_Error* (*PJRT_AsyncHostToDeviceTransferManager_BufferSize)(
      PJRT_AsyncHostToDeviceTransferManager_BufferSize_Args*);
  PJRT_Error* (*PJRT_AsyncHostToDeviceTransferManager_SetBufferError)(
      PJRT_AsyncHostToDeviceTransferManager_SetBufferError_Args*);
  PJRT_Error* (*PJRT_AsyncHostToDeviceTransferManager_AddMetadata)(
      PJRT_AsyncHostToDeviceTransferManager_AddMetadata_Args*);
  PJRT_Unimplemented_Function PJRT_Client_DmaMap;  // 0.67
  PJRT_Unimplemented_Function PJRT_Client_DmaUnmap;
  PJRT_Unimplemented_Function PJRT_Client_CreateUninitializedBuffer;  // 0.69
  PJRT_Error* (*PJRT_Client_UpdateGlobalProcessInfo)(PJRT_Client_UpdateGlobalProcessInfo_Args*);  // 0.73
  PJRT_Error* (*PJRT_TopologyDescription_Deserialize)(PJRT_TopologyDescription_Deserialize_Args*);  // 0.75
  PJRT_Unimplemented_Function PJRT_Client_CreateAliasBuffer;  // 0.77
  PJRT_Unimplemented_Function PJRT_Client_FulfillAliasBuffer;
  PJRT_Error* (*PJRT_LoadedExecutable_GetDeviceAssignment)(PJRT_LoadedExecutable_GetDeviceAssignment_Args*);  // 0.79
  PJRT_Unimplemented_Function PJRT_Client_CreateErrorBuffer;  // 0.82
  PJRT_Error* (*PJRT_AsyncHostToDeviceTransferManager_TransferLiteral)(
      PJRT_AsyncHostToDeviceTransferManager_TransferLiteral_Args*);  // 0.83
  PJRT_Unimplemented_Function PJRT_Buffer_CopyRawToHostFuture;  // 0.84
  PJRT_Unimplemented_Function PJRT_Device_PoisonExecution;  // 0.85
  PJRT_Error* (*PJRT_Device_CreateAsyncTrackingEvent)(PJRT_Device_CreateAsyncTrackingEvent_Args*);  // 0.86
  PJRT_Error* (*PJRT_AsyncTrackingEvent_Destroy)(PJRT_AsyncTrackingEvent_Destroy_Args*);
  PJRT_Error* (*PJRT_Executable_GetCompileOptions)(PJRT_Executable_GetCompileOptions_Args*);  // 0.87
  PJRT_Unimplemented_Function PJRT_Buffer_DonateWithControlDependency;  // 0.88
  PJRT_Error* (*PJRT_Event_Create)(PJRT_Event_Create_Args*);  // 0.89
  PJRT_Error* (*PJRT_Event_Set)(PJRT_Event_Set_Args*);
  PJRT_Error* (*PJRT_Device_GetAttributes)(PJRT_Device_GetAttributes_Args*);  // 0.92; the table of 0.93 ends here
} PJRT_Api;


// The plugin's one exported symbol.
const PJRT_Api* GetPjrtApi();

}  // extern "C"
