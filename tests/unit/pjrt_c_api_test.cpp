// Drives build/lib/libkiln_pjrt.so through the PJRT C API alone, as jaxlib
// does: dlopen, GetPjrtApi, client, devices, buffers from and to the host,
// compile, execute, events and errors. Nothing of kiln is linked in.
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "kiln/pjrt/pjrt_abi.h"

namespace {

class PjrtCApiTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    handle_ = dlopen(KILN_PJRT_LIBRARY, RTLD_NOW | RTLD_LOCAL);
    ASSERT_NE(handle_, nullptr) << dlerror();
    auto get = reinterpret_cast<const PJRT_Api* (*)()>(dlsym(handle_, "GetPjrtApi"));
    ASSERT_NE(get, nullptr);
    api_ = get();
    PJRT_Plugin_Initialize_Args init{sizeof(init)};
    ASSERT_EQ(api_->PJRT_Plugin_Initialize(&init), nullptr);
  }

  void SetUp() override {
    PJRT_Client_Create_Args args{sizeof(args)};
    ASSERT_EQ(api_->PJRT_Client_Create(&args), nullptr);
    client_ = args.client;
  }

  void TearDown() override {
    PJRT_Client_Destroy_Args args{sizeof(args)};
    args.client = client_;
    EXPECT_EQ(api_->PJRT_Client_Destroy(&args), nullptr);
  }

  // The error's message and code, and frees it.
  std::pair<std::string, PJRT_Error_Code> take(PJRT_Error* error) {
    PJRT_Error_Message_Args message{sizeof(message)};
    message.error = error;
    api_->PJRT_Error_Message(&message);
    PJRT_Error_GetCode_Args code{sizeof(code)};
    code.error = error;
    EXPECT_EQ(api_->PJRT_Error_GetCode(&code), nullptr);
    std::pair<std::string, PJRT_Error_Code> result{std::string(message.message, message.message_size), code.code};
    PJRT_Error_Destroy_Args destroy{sizeof(destroy)};
    destroy.error = error;
    api_->PJRT_Error_Destroy(&destroy);
    return result;
  }

  PJRT_Device* device(size_t i) {
    PJRT_Client_Devices_Args args{sizeof(args)};
    args.client = client_;
    EXPECT_EQ(api_->PJRT_Client_Devices(&args), nullptr);
    return i < args.num_devices ? args.devices[i] : nullptr;
  }

  PJRT_Buffer* upload(const std::vector<float>& data, std::vector<int64_t> dims) {
    PJRT_Client_BufferFromHostBuffer_Args args{sizeof(args)};
    args.client = client_;
    args.data = data.data();
    args.type = PJRT_Buffer_Type_F32;
    args.dims = dims.data();
    args.num_dims = dims.size();
    args.host_buffer_semantics = PJRT_HostBufferSemantics_kImmutableOnlyDuringCall;
    args.device = device(0);
    EXPECT_EQ(api_->PJRT_Client_BufferFromHostBuffer(&args), nullptr);
    destroyEvent(args.done_with_host_buffer);
    return args.buffer;
  }

  void destroyEvent(PJRT_Event* event) {
    PJRT_Event_Destroy_Args args{sizeof(args)};
    args.event = event;
    EXPECT_EQ(api_->PJRT_Event_Destroy(&args), nullptr);
  }

  // Waits for `event`; returns its error (null if none) and destroys it.
  PJRT_Error* await(PJRT_Event* event) {
    PJRT_Event_Await_Args args{sizeof(args)};
    args.event = event;
    PJRT_Error* error = api_->PJRT_Event_Await(&args);
    destroyEvent(event);
    return error;
  }

  // Copies `buffer` to the host; the error of the copy, if any, in `error`.
  std::vector<float> download(PJRT_Buffer* buffer, PJRT_Error** error = nullptr) {
    PJRT_Buffer_ToHostBuffer_Args size{sizeof(size)};
    size.src = buffer;
    EXPECT_EQ(api_->PJRT_Buffer_ToHostBuffer(&size), nullptr);
    std::vector<float> out(size.dst_size / sizeof(float));
    PJRT_Buffer_ToHostBuffer_Args copy{sizeof(copy)};
    copy.src = buffer;
    copy.dst = out.data();
    copy.dst_size = size.dst_size;
    PJRT_Error* failed = api_->PJRT_Buffer_ToHostBuffer(&copy);
    if (!failed) failed = await(copy.event);
    if (error) *error = failed;
    else EXPECT_EQ(failed, nullptr);
    return out;
  }

  void destroyBuffer(PJRT_Buffer* buffer) {
    PJRT_Buffer_Args args{sizeof(args)};
    args.buffer = buffer;
    EXPECT_EQ(api_->PJRT_Buffer_Destroy(&args), nullptr);
  }

  PJRT_Error* compile(const std::string& program, PJRT_LoadedExecutable** executable) {
    PJRT_Program code{sizeof(code)};
    code.code = const_cast<char*>(program.data());
    code.code_size = program.size();
    code.format = "mlir";
    code.format_size = 4;
    PJRT_Client_Compile_Args args{sizeof(args)};
    args.client = client_;
    args.program = &code;
    PJRT_Error* error = api_->PJRT_Client_Compile(&args);
    *executable = args.executable;
    return error;
  }

  static void* handle_;
  static const PJRT_Api* api_;
  PJRT_Client* client_ = nullptr;
};

void* PjrtCApiTest::handle_ = nullptr;
const PJRT_Api* PjrtCApiTest::api_ = nullptr;

TEST_F(PjrtCApiTest, ReportsItsVersionPlatformAndDevices) {
  EXPECT_EQ(api_->pjrt_api_version.major_version, kPjrtApiMajor);
  EXPECT_EQ(api_->pjrt_api_version.minor_version, kPjrtApiMinor);
  PJRT_Client_PlatformName_Args name{sizeof(name)};
  name.client = client_;
  ASSERT_EQ(api_->PJRT_Client_PlatformName(&name), nullptr);
  EXPECT_EQ(std::string(name.platform_name, name.platform_name_size), "kiln");

  PJRT_Device_GetDescription_Args description{sizeof(description)};
  description.device = device(0);
  ASSERT_EQ(api_->PJRT_Device_GetDescription(&description), nullptr);
  PJRT_DeviceDescription_Id_Args id{sizeof(id)};
  id.device_description = description.device_description;
  ASSERT_EQ(api_->PJRT_DeviceDescription_Id(&id), nullptr);
  EXPECT_EQ(id.id, 0);
  PJRT_Device_DefaultMemory_Args memory{sizeof(memory)};
  memory.device = device(0);
  ASSERT_EQ(api_->PJRT_Device_DefaultMemory(&memory), nullptr);
  EXPECT_NE(memory.memory, nullptr);
}

TEST_F(PjrtCApiTest, CompilesAndExecutesAProgram) {
  PJRT_LoadedExecutable* executable = nullptr;
  ASSERT_EQ(compile("func.func @main(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {\n"
                    "  %0 = stablehlo.multiply %a, %b : tensor<4xf32>\n"
                    "  %1 = stablehlo.add %0, %a : tensor<4xf32>\n"
                    "  func.return %1 : tensor<4xf32>\n}\n",
                    &executable),
            nullptr);
  PJRT_LoadedExecutable_GetExecutable_Args get{sizeof(get)};
  get.loaded_executable = executable;
  ASSERT_EQ(api_->PJRT_LoadedExecutable_GetExecutable(&get), nullptr);
  PJRT_Executable_Count_Args outputs{sizeof(outputs)};
  outputs.executable = get.executable;
  ASSERT_EQ(api_->PJRT_Executable_NumOutputs(&outputs), nullptr);
  EXPECT_EQ(outputs.value, 1u);
  PJRT_Executable_Destroy_Args destroyExecutable{sizeof(destroyExecutable)};
  destroyExecutable.executable = get.executable;
  EXPECT_EQ(api_->PJRT_Executable_Destroy(&destroyExecutable), nullptr);

  PJRT_Buffer* a = upload({1, 2, 3, 4}, {4});
  PJRT_Buffer* b = upload({10, 20, 30, 40}, {4});
  PJRT_Buffer* arguments[] = {a, b};
  PJRT_Buffer* const* argumentLists[] = {arguments};
  PJRT_Buffer* results[1] = {};
  PJRT_Buffer** resultLists[] = {results};
  PJRT_Event* done[1] = {};
  PJRT_ExecuteOptions options{sizeof(options)};
  PJRT_LoadedExecutable_Execute_Args execute{sizeof(execute)};
  execute.executable = executable;
  execute.options = &options;
  execute.argument_lists = argumentLists;
  execute.num_devices = 1;
  execute.num_args = 2;
  execute.output_lists = resultLists;
  execute.device_complete_events = done;
  ASSERT_EQ(api_->PJRT_LoadedExecutable_Execute(&execute), nullptr);
  EXPECT_EQ(await(done[0]), nullptr);
  EXPECT_EQ(download(results[0]), (std::vector<float>{11, 42, 93, 164}));

  PJRT_Buffer_Dimensions_Args dims{sizeof(dims)};
  dims.buffer = results[0];
  ASSERT_EQ(api_->PJRT_Buffer_Dimensions(&dims), nullptr);
  ASSERT_EQ(dims.num_dims, 1u);
  EXPECT_EQ(dims.dims[0], 4);

  for (PJRT_Buffer* buffer : {a, b, results[0]}) destroyBuffer(buffer);
  PJRT_LoadedExecutable_Destroy_Args destroy{sizeof(destroy)};
  destroy.executable = executable;
  EXPECT_EQ(api_->PJRT_LoadedExecutable_Destroy(&destroy), nullptr);
}

TEST_F(PjrtCApiTest, ABadProgramIsAnErrorWithKilnsMessage) {
  PJRT_LoadedExecutable* executable = nullptr;
  PJRT_Error* error = compile("func.func @main(%a: tensor<4xf32>) -> tensor<4xf32> {\n"
                              "  %0 = stablehlo.add %a, %a : tensor<5xf32>\n"
                              "  func.return %0 : tensor<5xf32>\n}\n",
                              &executable);
  ASSERT_NE(error, nullptr);
  auto [message, code] = take(error);
  EXPECT_EQ(code, PJRT_Error_Code_INVALID_ARGUMENT);
  EXPECT_NE(message.find("kiln: "), std::string::npos) << message;
  EXPECT_NE(message.find(":2:"), std::string::npos) << "the error names its line: " << message;
}

TEST_F(PjrtCApiTest, ADeletedBufferCannotBeRead) {
  PJRT_Buffer* a = upload({1, 2}, {2});
  PJRT_Buffer_Args del{sizeof(del)};
  del.buffer = a;
  ASSERT_EQ(api_->PJRT_Buffer_Delete(&del), nullptr);
  PJRT_Buffer_Bool_Args deleted{sizeof(deleted)};
  deleted.buffer = a;
  ASSERT_EQ(api_->PJRT_Buffer_IsDeleted(&deleted), nullptr);
  EXPECT_TRUE(deleted.value);
  PJRT_Error* error = nullptr;
  download(a, &error);
  ASSERT_NE(error, nullptr);
  auto [message, code] = take(error);
  EXPECT_EQ(code, PJRT_Error_Code_FAILED_PRECONDITION);
  EXPECT_NE(message.find("deleted"), std::string::npos) << message;
  destroyBuffer(a);
}

TEST_F(PjrtCApiTest, StridedHostDataIsGatheredIntoKilnsLayout) {
  // The 2x2 column-major view of {1, 2, 3, 4}: rows are {1, 3} and {2, 4}.
  std::vector<float> data{1, 2, 3, 4};
  int64_t dims[] = {2, 2};
  int64_t strides[] = {4, 8};
  PJRT_Client_BufferFromHostBuffer_Args args{sizeof(args)};
  args.client = client_;
  args.data = data.data();
  args.type = PJRT_Buffer_Type_F32;
  args.dims = dims;
  args.num_dims = 2;
  args.byte_strides = strides;
  args.num_byte_strides = 2;
  args.host_buffer_semantics = PJRT_HostBufferSemantics_kImmutableOnlyDuringCall;
  ASSERT_EQ(api_->PJRT_Client_BufferFromHostBuffer(&args), nullptr);
  destroyEvent(args.done_with_host_buffer);
  EXPECT_EQ(download(args.buffer), (std::vector<float>{1, 3, 2, 4}));
  destroyBuffer(args.buffer);
}

TEST_F(PjrtCApiTest, EventCallbacksRun) {
  PJRT_Buffer* a = upload({5}, {1});
  PJRT_Buffer_ReadyEvent_Args ready{sizeof(ready)};
  ready.buffer = a;
  ASSERT_EQ(api_->PJRT_Buffer_ReadyEvent(&ready), nullptr);
  bool called = false;
  PJRT_Event_OnReady_Args onReady{sizeof(onReady)};
  onReady.event = ready.event;
  onReady.user_arg = &called;
  onReady.callback = [](PJRT_Error* error, void* flag) {
    *static_cast<bool*>(flag) = error == nullptr;
  };
  ASSERT_EQ(api_->PJRT_Event_OnReady(&onReady), nullptr);
  EXPECT_EQ(await(ready.event), nullptr);
  EXPECT_TRUE(called);
  destroyBuffer(a);
}

// Zero-copy (kImmutableZeroCopy): the buffer computes on the caller's array,
// and done_with_host_buffer fires only once kiln let go of it.
TEST_F(PjrtCApiTest, ZeroCopyHostDataIsUsedInPlaceUntilTheBufferGoes) {
  alignas(64) float data[4] = {1, 2, 3, 4};
  int64_t dims[] = {4};
  PJRT_Client_BufferFromHostBuffer_Args args{sizeof(args)};
  args.client = client_;
  args.data = data;
  args.type = PJRT_Buffer_Type_F32;
  args.dims = dims;
  args.num_dims = 1;
  args.host_buffer_semantics = PJRT_HostBufferSemantics_kImmutableZeroCopy;
  ASSERT_EQ(api_->PJRT_Client_BufferFromHostBuffer(&args), nullptr);
  PJRT_Buffer_UnsafePointer_Args pointer{sizeof(pointer)};
  pointer.buffer = args.buffer;
  ASSERT_EQ(api_->PJRT_Buffer_UnsafePointer(&pointer), nullptr);
  EXPECT_EQ(pointer.buffer_pointer, reinterpret_cast<uintptr_t>(data));
  PJRT_Event_IsReady_Args done{sizeof(done)};
  done.event = args.done_with_host_buffer;
  ASSERT_EQ(api_->PJRT_Event_IsReady(&done), nullptr);
  EXPECT_FALSE(done.is_ready);
  EXPECT_EQ(download(args.buffer), (std::vector<float>{1, 2, 3, 4}));
  destroyBuffer(args.buffer);
  ASSERT_EQ(api_->PJRT_Event_IsReady(&done), nullptr);
  EXPECT_TRUE(done.is_ready);
  EXPECT_EQ(await(args.done_with_host_buffer), nullptr);
}

// Data kiln's kernels could not read in place (misaligned, strided) is
// copied, and the caller may reuse it at once.
TEST_F(PjrtCApiTest, ZeroCopyFallsBackToACopyForMisalignedOrStridedData) {
  alignas(64) char bytes[4 * sizeof(float) + 1] = {};
  float values[4] = {1, 2, 3, 4};
  std::memcpy(bytes + 1, values, sizeof(values));
  std::vector<float> strided{1, 0, 2, 0, 3, 0, 4, 0};
  int64_t dims[] = {4};
  int64_t strides[] = {2 * sizeof(float)};
  for (bool misaligned : {true, false}) {
    PJRT_Client_BufferFromHostBuffer_Args args{sizeof(args)};
    args.client = client_;
    args.data = misaligned ? static_cast<const void*>(bytes + 1) : strided.data();
    args.type = PJRT_Buffer_Type_F32;
    args.dims = dims;
    args.num_dims = 1;
    args.byte_strides = misaligned ? nullptr : strides;
    args.num_byte_strides = misaligned ? 0 : 1;
    args.host_buffer_semantics = PJRT_HostBufferSemantics_kImmutableZeroCopy;
    ASSERT_EQ(api_->PJRT_Client_BufferFromHostBuffer(&args), nullptr);
    PJRT_Event_IsReady_Args done{sizeof(done)};
    done.event = args.done_with_host_buffer;
    ASSERT_EQ(api_->PJRT_Event_IsReady(&done), nullptr);
    EXPECT_TRUE(done.is_ready) << (misaligned ? "misaligned" : "strided");
    destroyEvent(args.done_with_host_buffer);
    PJRT_Buffer_UnsafePointer_Args pointer{sizeof(pointer)};
    pointer.buffer = args.buffer;
    ASSERT_EQ(api_->PJRT_Buffer_UnsafePointer(&pointer), nullptr);
    EXPECT_NE(pointer.buffer_pointer, reinterpret_cast<uintptr_t>(args.data));
    EXPECT_EQ(download(args.buffer), (std::vector<float>{1, 2, 3, 4}));
    destroyBuffer(args.buffer);
  }
}

// An external reference (jaxlib's NumPy view of a buffer) keeps the
// buffer's memory: it survives a delete, and reads the buffer's values.
TEST_F(PjrtCApiTest, AnExternalReferenceKeepsTheMemoryAfterADelete) {
  PJRT_Buffer* a = upload({7, 8, 9}, {3});
  PJRT_Buffer_Bool_Args onCpu{sizeof(onCpu)};
  onCpu.buffer = a;
  ASSERT_EQ(api_->PJRT_Buffer_IsOnCpu(&onCpu), nullptr);
  EXPECT_TRUE(onCpu.value);
  PJRT_Buffer_Args reference{sizeof(reference)};
  reference.buffer = a;
  ASSERT_EQ(api_->PJRT_Buffer_IncreaseExternalReferenceCount(&reference), nullptr);
  PJRT_Buffer_OpaqueDeviceMemoryDataPointer_Args pointer{sizeof(pointer)};
  pointer.buffer = a;
  ASSERT_EQ(api_->PJRT_Buffer_OpaqueDeviceMemoryDataPointer(&pointer), nullptr);
  const auto* view = static_cast<const float*>(pointer.device_memory_ptr);
  ASSERT_EQ(api_->PJRT_Buffer_Delete(&reference), nullptr);
  PJRT_Buffer* b = upload({0, 0, 0}, {3});  // may take freed memory
  EXPECT_EQ(std::vector<float>(view, view + 3), (std::vector<float>{7, 8, 9}));
  ASSERT_EQ(api_->PJRT_Buffer_DecreaseExternalReferenceCount(&reference), nullptr);
  auto [message, code] = take(api_->PJRT_Buffer_DecreaseExternalReferenceCount(&reference));
  EXPECT_EQ(code, PJRT_Error_Code_FAILED_PRECONDITION);
  EXPECT_NE(message.find("no external reference"), std::string::npos) << message;
  destroyBuffer(a);
  destroyBuffer(b);
}

// Compiling without a client, for a topology (jax.experimental.topologies):
// the executable answers what an unloaded one does, serializes, and loads
// on a client. A topology option kiln does not know is an error.
TEST_F(PjrtCApiTest, CompilesForATopologyWithoutAClient) {
  PJRT_NamedValue option{sizeof(option)};
  option.name = "num_devices";
  option.name_size = 11;
  option.type = PJRT_NamedValue_kInt64;
  option.int64_value = 2;
  option.value_size = 1;
  PJRT_TopologyDescription_Create_Args create{sizeof(create)};
  create.create_options = &option;
  create.num_options = 1;
  ASSERT_EQ(api_->PJRT_TopologyDescription_Create(&create), nullptr);
  PJRT_TopologyDescription_GetDeviceDescriptions_Args descriptions{sizeof(descriptions)};
  descriptions.topology = create.topology;
  ASSERT_EQ(api_->PJRT_TopologyDescription_GetDeviceDescriptions(&descriptions), nullptr);
  EXPECT_EQ(descriptions.num_descriptions, 2u);
  PJRT_TopologyDescription_String_Args version{sizeof(version)};
  version.topology = create.topology;
  ASSERT_EQ(api_->PJRT_TopologyDescription_PlatformVersion(&version), nullptr);
  EXPECT_EQ(std::string(version.value, version.value_size).rfind("kiln ", 0), 0u);

  std::string program = "func.func @main(%a: tensor<4xf32>) -> (tensor<4xf32>, tensor<f32>) {\n"
                        "  %0 = stablehlo.add %a, %a : tensor<4xf32>\n"
                        "  %z = stablehlo.constant dense<0.0> : tensor<f32>\n"
                        "  func.return %0, %z : tensor<4xf32>, tensor<f32>\n}\n";
  PJRT_Program code{sizeof(code)};
  code.code = program.data();
  code.code_size = program.size();
  code.format = "mlir";
  code.format_size = 4;
  PJRT_Compile_Args compile{sizeof(compile)};
  compile.topology = create.topology;
  compile.program = &code;
  ASSERT_EQ(api_->PJRT_Compile(&compile), nullptr);
  PJRT_Executable_Count_Args outputs{sizeof(outputs)};
  outputs.executable = compile.executable;
  ASSERT_EQ(api_->PJRT_Executable_NumOutputs(&outputs), nullptr);
  EXPECT_EQ(outputs.value, 2u);
  PJRT_Executable_Serialize_Args serialize{sizeof(serialize)};
  serialize.executable = compile.executable;
  ASSERT_EQ(api_->PJRT_Executable_Serialize(&serialize), nullptr);
  PJRT_Executable_DeserializeAndLoad_Args load{sizeof(load)};
  load.client = client_;
  load.serialized_executable = serialize.serialized_bytes;
  load.serialized_executable_size = serialize.serialized_bytes_size;
  ASSERT_EQ(api_->PJRT_Executable_DeserializeAndLoad(&load), nullptr);
  ASSERT_NE(load.loaded_executable, nullptr);
  serialize.serialized_executable_deleter(serialize.serialized_executable);
  PJRT_LoadedExecutable_Destroy_Args destroyLoaded{sizeof(destroyLoaded)};
  destroyLoaded.executable = load.loaded_executable;
  EXPECT_EQ(api_->PJRT_LoadedExecutable_Destroy(&destroyLoaded), nullptr);
  PJRT_Executable_Destroy_Args destroyExecutable{sizeof(destroyExecutable)};
  destroyExecutable.executable = compile.executable;
  EXPECT_EQ(api_->PJRT_Executable_Destroy(&destroyExecutable), nullptr);
  PJRT_TopologyDescription_Destroy_Args destroy{sizeof(destroy)};
  destroy.topology = create.topology;
  EXPECT_EQ(api_->PJRT_TopologyDescription_Destroy(&destroy), nullptr);

  option.name = "cores";
  option.name_size = 5;
  PJRT_TopologyDescription_Create_Args bad{sizeof(bad)};
  bad.create_options = &option;
  bad.num_options = 1;
  auto [message, errorCode] = take(api_->PJRT_TopologyDescription_Create(&bad));
  EXPECT_EQ(errorCode, PJRT_Error_Code_INVALID_ARGUMENT);
  EXPECT_EQ(message, "kiln: unknown topology option 'cores' (kiln's topologies take num_devices, an integer)");
}

// A topology serializes (PJRT_TopologyDescription_Serialize) and reads back
// (PJRT_TopologyDescription_Deserialize, 0.75) as a topology without a
// client with the same devices and platform version; a program compiled for
// the copy loads on the client and runs. Bytes that are not a serialized
// topology are an error naming the line.
TEST_F(PjrtCApiTest, ATopologySerializesAndReadsBack) {
  PJRT_Client_TopologyDescription_Args clientTopology{sizeof(clientTopology)};
  clientTopology.client = client_;
  ASSERT_EQ(api_->PJRT_Client_TopologyDescription(&clientTopology), nullptr);
  auto describe = [&](PJRT_TopologyDescription* topology) {
    PJRT_TopologyDescription_String_Args version{sizeof(version)};
    version.topology = topology;
    EXPECT_EQ(api_->PJRT_TopologyDescription_PlatformVersion(&version), nullptr);
    std::string out(version.value, version.value_size);
    PJRT_TopologyDescription_GetDeviceDescriptions_Args descriptions{sizeof(descriptions)};
    descriptions.topology = topology;
    EXPECT_EQ(api_->PJRT_TopologyDescription_GetDeviceDescriptions(&descriptions), nullptr);
    for (size_t i = 0; i < descriptions.num_descriptions; ++i) {
      PJRT_DeviceDescription_Id_Args id{sizeof(id)};
      id.device_description = descriptions.descriptions[i];
      EXPECT_EQ(api_->PJRT_DeviceDescription_Id(&id), nullptr);
      PJRT_DeviceDescription_ProcessIndex_Args process{sizeof(process)};
      process.device_description = descriptions.descriptions[i];
      EXPECT_EQ(api_->PJRT_DeviceDescription_ProcessIndex(&process), nullptr);
      out += " | device " + std::to_string(id.id) + " process " + std::to_string(process.process_index);
    }
    return out;
  };
  auto serialize = [&](PJRT_TopologyDescription* topology) {
    PJRT_TopologyDescription_Serialize_Args args{sizeof(args)};
    args.topology = topology;
    EXPECT_EQ(api_->PJRT_TopologyDescription_Serialize(&args), nullptr);
    std::string bytes(args.serialized_bytes, args.serialized_bytes_size);
    args.serialized_topology_deleter(args.serialized_topology);
    return bytes;
  };
  auto deserialize = [&](const std::string& bytes, PJRT_TopologyDescription** topology) {
    PJRT_TopologyDescription_Deserialize_Args args{sizeof(args)};
    args.serialized_topology = bytes.data();
    args.serialized_topology_size = bytes.size();
    PJRT_Error* error = api_->PJRT_TopologyDescription_Deserialize(&args);
    *topology = args.topology;
    return error;
  };
  auto destroy = [&](PJRT_TopologyDescription* topology) {
    PJRT_TopologyDescription_Destroy_Args args{sizeof(args)};
    args.topology = topology;
    EXPECT_EQ(api_->PJRT_TopologyDescription_Destroy(&args), nullptr);
  };

  std::string bytes = serialize(clientTopology.topology);
  PJRT_TopologyDescription* copy = nullptr;
  ASSERT_EQ(deserialize(bytes, &copy), nullptr);
  ASSERT_NE(copy, nullptr);
  EXPECT_EQ(describe(copy), describe(clientTopology.topology));
  EXPECT_NE(describe(copy).find("device 0 process 0"), std::string::npos) << describe(copy);
  EXPECT_EQ(serialize(copy), bytes);  // and again, the same bytes

  // One made with options (4 devices) keeps them.
  PJRT_NamedValue option{sizeof(option)};
  option.name = "num_devices";
  option.name_size = 11;
  option.type = PJRT_NamedValue_kInt64;
  option.int64_value = 4;
  option.value_size = 1;
  PJRT_TopologyDescription_Create_Args create{sizeof(create)};
  create.create_options = &option;
  create.num_options = 1;
  ASSERT_EQ(api_->PJRT_TopologyDescription_Create(&create), nullptr);
  PJRT_TopologyDescription* four = nullptr;
  ASSERT_EQ(deserialize(serialize(create.topology), &four), nullptr);
  EXPECT_EQ(describe(four), describe(create.topology));
  PJRT_TopologyDescription_GetDeviceDescriptions_Args fourDevices{sizeof(fourDevices)};
  fourDevices.topology = four;
  ASSERT_EQ(api_->PJRT_TopologyDescription_GetDeviceDescriptions(&fourDevices), nullptr);
  EXPECT_EQ(fourDevices.num_descriptions, 4u);
  destroy(four);
  destroy(create.topology);

  // Compiled for the copy, loaded on the client, run.
  std::string program = "func.func @main(%a: tensor<4xf32>) -> tensor<4xf32> {\n"
                        "  %0 = stablehlo.multiply %a, %a : tensor<4xf32>\n"
                        "  func.return %0 : tensor<4xf32>\n}\n";
  PJRT_Program code{sizeof(code)};
  code.code = program.data();
  code.code_size = program.size();
  code.format = "mlir";
  code.format_size = 4;
  PJRT_Compile_Args compile{sizeof(compile)};
  compile.topology = copy;
  compile.program = &code;
  ASSERT_EQ(api_->PJRT_Compile(&compile), nullptr);
  PJRT_Executable_Serialize_Args serialized{sizeof(serialized)};
  serialized.executable = compile.executable;
  ASSERT_EQ(api_->PJRT_Executable_Serialize(&serialized), nullptr);
  PJRT_Executable_DeserializeAndLoad_Args load{sizeof(load)};
  load.client = client_;
  load.serialized_executable = serialized.serialized_bytes;
  load.serialized_executable_size = serialized.serialized_bytes_size;
  ASSERT_EQ(api_->PJRT_Executable_DeserializeAndLoad(&load), nullptr);
  serialized.serialized_executable_deleter(serialized.serialized_executable);
  PJRT_Buffer* a = upload({1, 2, 3, 4}, {4});
  PJRT_Buffer* arguments[] = {a};
  PJRT_Buffer* const* argumentLists[] = {arguments};
  PJRT_Buffer* results[1] = {};
  PJRT_Buffer** resultLists[] = {results};
  PJRT_ExecuteOptions options{sizeof(options)};
  PJRT_LoadedExecutable_Execute_Args execute{sizeof(execute)};
  execute.executable = load.loaded_executable;
  execute.options = &options;
  execute.argument_lists = argumentLists;
  execute.num_devices = 1;
  execute.num_args = 1;
  execute.output_lists = resultLists;
  ASSERT_EQ(api_->PJRT_LoadedExecutable_Execute(&execute), nullptr);
  EXPECT_EQ(download(results[0]), (std::vector<float>{1, 4, 9, 16}));
  for (PJRT_Buffer* buffer : {a, results[0]}) destroyBuffer(buffer);
  PJRT_LoadedExecutable_Destroy_Args destroyLoaded{sizeof(destroyLoaded)};
  destroyLoaded.executable = load.loaded_executable;
  EXPECT_EQ(api_->PJRT_LoadedExecutable_Destroy(&destroyLoaded), nullptr);
  PJRT_Executable_Destroy_Args destroyExecutable{sizeof(destroyExecutable)};
  destroyExecutable.executable = compile.executable;
  EXPECT_EQ(api_->PJRT_Executable_Destroy(&destroyExecutable), nullptr);
  destroy(copy);

  // Not a topology: clear errors, never a crash (every truncation too).
  for (size_t cut = 0; cut < bytes.size(); ++cut) {
    PJRT_TopologyDescription* none = nullptr;
    PJRT_Error* error = deserialize(bytes.substr(0, cut), &none);
    ASSERT_NE(error, nullptr) << "cut at " << cut;
    auto [message, errorCode] = take(error);
    EXPECT_EQ(errorCode, PJRT_Error_Code_INVALID_ARGUMENT);
    EXPECT_EQ(message.rfind("kiln: not a topology serialized by kiln's plugin (line ", 0), 0u) << message;
  }
  PJRT_TopologyDescription* none = nullptr;
  std::string reordered = bytes;
  reordered.replace(reordered.find("device 0 "), 9, "device 7 ");
  auto [message, errorCode] = take(deserialize(reordered, &none));
  EXPECT_EQ(message, "kiln: not a topology serialized by kiln's plugin (line 4): device 7 where device 0 belongs");
  auto [trailing, trailingCode] = take(deserialize(bytes + "x", &none));
  EXPECT_EQ(trailing, "kiln: not a topology serialized by kiln's plugin (line " +
                          std::to_string(std::count(bytes.begin(), bytes.end(), '\n') + 1) +
                          "): text after the last device");
}

// Asynchronous host-to-device transfers (jaxlib's transfer server): buffers
// made empty, filled in chunks at offsets, ready with the last chunk; a
// whole literal (0.83); an error set on a buffer; a buffer whose manager
// went before its last transfer fails rather than waits; bad indices,
// ranges and repeats are errors.
TEST_F(PjrtCApiTest, AsynchronousTransfersFillBuffersChunkByChunk) {
  PJRT_Device_DefaultMemory_Args memory{sizeof(memory)};
  memory.device = device(0);
  ASSERT_EQ(api_->PJRT_Device_DefaultMemory(&memory), nullptr);
  int64_t dims0[] = {2, 3}, dims1[] = {4}, dims2[] = {0, 5};
  PJRT_ShapeSpec specs[4] = {{sizeof(PJRT_ShapeSpec)}, {sizeof(PJRT_ShapeSpec)}, {sizeof(PJRT_ShapeSpec)},
                             {sizeof(PJRT_ShapeSpec)}};
  specs[0].dims = dims0, specs[0].num_dims = 2, specs[0].element_type = PJRT_Buffer_Type_F32;
  specs[1].dims = dims1, specs[1].num_dims = 1, specs[1].element_type = PJRT_Buffer_Type_F32;
  specs[2].dims = dims2, specs[2].num_dims = 2, specs[2].element_type = PJRT_Buffer_Type_F32;
  specs[3].dims = dims1, specs[3].num_dims = 1, specs[3].element_type = PJRT_Buffer_Type_F32;
  PJRT_Client_CreateBuffersForAsyncHostToDevice_Args create{sizeof(create)};
  create.client = client_;
  create.shape_specs = specs;
  create.num_shape_specs = 4;
  create.memory = memory.memory;
  ASSERT_EQ(api_->PJRT_Client_CreateBuffersForAsyncHostToDevice(&create), nullptr);
  PJRT_AsyncHostToDeviceTransferManager* manager = create.transfer_manager;

  PJRT_AsyncHostToDeviceTransferManager_BufferCount_Args count{sizeof(count)};
  count.transfer_manager = manager;
  ASSERT_EQ(api_->PJRT_AsyncHostToDeviceTransferManager_BufferCount(&count), nullptr);
  EXPECT_EQ(count.buffer_count, 4u);
  PJRT_AsyncHostToDeviceTransferManager_BufferSize_Args size{sizeof(size)};
  size.transfer_manager = manager;
  size.buffer_index = 0;
  ASSERT_EQ(api_->PJRT_AsyncHostToDeviceTransferManager_BufferSize(&size), nullptr);
  EXPECT_EQ(size.buffer_size, 24u);
  PJRT_AsyncHostToDeviceTransferManager_Device_Args where{sizeof(where)};
  where.transfer_manager = manager;
  ASSERT_EQ(api_->PJRT_AsyncHostToDeviceTransferManager_Device(&where), nullptr);
  EXPECT_EQ(where.device_out, device(0));

  auto retrieve = [&](int index, PJRT_Buffer** out) {
    PJRT_AsyncHostToDeviceTransferManager_RetrieveBuffer_Args args{sizeof(args)};
    args.transfer_manager = manager;
    args.buffer_index = index;
    PJRT_Error* error = api_->PJRT_AsyncHostToDeviceTransferManager_RetrieveBuffer(&args);
    *out = args.buffer_out;
    return error;
  };
  auto isReady = [&](PJRT_Buffer* buffer) {
    PJRT_Buffer_ReadyEvent_Args ready{sizeof(ready)};
    ready.buffer = buffer;
    EXPECT_EQ(api_->PJRT_Buffer_ReadyEvent(&ready), nullptr);
    PJRT_Event_IsReady_Args is{sizeof(is)};
    is.event = ready.event;
    EXPECT_EQ(api_->PJRT_Event_IsReady(&is), nullptr);
    destroyEvent(ready.event);
    return is.is_ready;
  };
  auto transfer = [&](int index, const void* data, int64_t offset, int64_t bytes, bool last) {
    PJRT_AsyncHostToDeviceTransferManager_TransferData_Args args{sizeof(args)};
    args.transfer_manager = manager;
    args.buffer_index = index;
    args.data = data;
    args.offset = offset;
    args.transfer_size = bytes;
    args.is_last_transfer = last;
    PJRT_Error* error = api_->PJRT_AsyncHostToDeviceTransferManager_TransferData(&args);
    if (!error) {
      EXPECT_EQ(await(args.done_with_h2d_transfer), nullptr);
    }
    return error;
  };

  PJRT_Buffer *b0 = nullptr, *b1 = nullptr, *b2 = nullptr, *b3 = nullptr, *again = nullptr;
  ASSERT_EQ(retrieve(0, &b0), nullptr);
  ASSERT_EQ(retrieve(1, &b1), nullptr);
  ASSERT_EQ(retrieve(2, &b2), nullptr);
  ASSERT_EQ(retrieve(3, &b3), nullptr);
  EXPECT_EQ(take(retrieve(0, &again)).first, "kiln: buffer 0 was retrieved already");
  EXPECT_EQ(take(retrieve(4, &again)).first,
            "kiln: error: buffer index 4 is out of range: the transfer has 4 buffer(s)");
  EXPECT_TRUE(isReady(b2));  // empty: nothing to wait for

  // Buffer 0 in three chunks, out of order; ready only with the last.
  std::vector<float> values{1, 2, 3, 4, 5, 6};
  ASSERT_EQ(transfer(0, values.data() + 4, 16, 8, false), nullptr);
  ASSERT_EQ(transfer(0, values.data(), 0, 8, false), nullptr);
  EXPECT_FALSE(isReady(b0));
  auto [tooFar, tooFarCode] = take(transfer(0, values.data(), 20, 8, false));
  EXPECT_EQ(tooFarCode, PJRT_Error_Code_INVALID_ARGUMENT);
  EXPECT_EQ(tooFar, "kiln: error: a transfer of 8 bytes at offset 20 does not fit buffer 0's 24 bytes");
  ASSERT_EQ(transfer(0, values.data() + 2, 8, 8, true), nullptr);
  EXPECT_TRUE(isReady(b0));
  EXPECT_EQ(download(b0), values);
  EXPECT_EQ(take(transfer(0, values.data(), 0, 8, true)).first, "kiln: error: buffer 0 had its last transfer already");

  // Buffer 1 as one literal of its shape; a literal of another shape is refused.
  std::vector<float> literal{7, 8, 9, 10};
  PJRT_AsyncHostToDeviceTransferManager_TransferLiteral_Args whole{sizeof(whole)};
  whole.transfer_manager = manager;
  whole.buffer_index = 1;
  whole.data = literal.data();
  whole.shape_dims = dims0;
  whole.shape_num_dims = 2;
  whole.shape_element_type = PJRT_Buffer_Type_F32;
  EXPECT_EQ(take(api_->PJRT_AsyncHostToDeviceTransferManager_TransferLiteral(&whole)).first,
            "kiln: a literal of type tensor<2x3xf32> for buffer 1 of type tensor<4xf32>");
  whole.shape_dims = dims1;
  whole.shape_num_dims = 1;
  ASSERT_EQ(api_->PJRT_AsyncHostToDeviceTransferManager_TransferLiteral(&whole), nullptr);
  EXPECT_EQ(await(whole.done_with_h2d_transfer), nullptr);
  EXPECT_EQ(download(b1), literal);

  // Buffer 3 never gets its last transfer: destroying the manager fails it.
  ASSERT_EQ(transfer(3, literal.data(), 0, 4, false), nullptr);
  PJRT_AsyncHostToDeviceTransferManager_Destroy_Args destroy{sizeof(destroy)};
  destroy.transfer_manager = manager;
  ASSERT_EQ(api_->PJRT_AsyncHostToDeviceTransferManager_Destroy(&destroy), nullptr);
  PJRT_Error* failed = nullptr;
  download(b3, &failed);
  ASSERT_NE(failed, nullptr);
  auto [gone, goneCode] = take(failed);
  EXPECT_EQ(goneCode, PJRT_Error_Code_FAILED_PRECONDITION);
  EXPECT_EQ(gone, "kiln: error: the transfer manager was destroyed before buffer 3's last transfer");
  EXPECT_EQ(download(b0), values);  // the finished ones outlive the manager
  for (PJRT_Buffer* b : {b0, b1, b2, b3}) destroyBuffer(b);

  // An error set on a buffer is what its readers get.
  PJRT_Client_CreateBuffersForAsyncHostToDevice_Args second{sizeof(second)};
  second.client = client_;
  second.shape_specs = specs;
  second.num_shape_specs = 1;
  second.memory = memory.memory;
  ASSERT_EQ(api_->PJRT_Client_CreateBuffersForAsyncHostToDevice(&second), nullptr);
  manager = second.transfer_manager;
  PJRT_Buffer* errored = nullptr;
  ASSERT_EQ(retrieve(0, &errored), nullptr);
  PJRT_AsyncHostToDeviceTransferManager_SetBufferError_Args setError{sizeof(setError)};
  setError.transfer_manager = manager;
  setError.buffer_index = 0;
  setError.error_code = PJRT_Error_Code_NOT_FOUND;
  setError.error_message = "the sender went away";
  setError.error_message_size = 20;
  ASSERT_EQ(api_->PJRT_AsyncHostToDeviceTransferManager_SetBufferError(&setError), nullptr);
  download(errored, &failed);
  ASSERT_NE(failed, nullptr);
  auto [sent, sentCode] = take(failed);
  EXPECT_EQ(sentCode, PJRT_Error_Code_NOT_FOUND);
  EXPECT_EQ(sent, "kiln: error: the sender went away");
  // A run that reads it fails with that error, and names the Python call
  // jaxlib passed in the execute options (jax_send_traceback_to_runtime).
  PJRT_LoadedExecutable* negate = nullptr;
  ASSERT_EQ(compile("func.func @main(%a: tensor<2x3xf32>) -> tensor<2x3xf32> {\n"
                    "  %0 = stablehlo.negate %a : tensor<2x3xf32>\n"
                    "  func.return %0 : tensor<2x3xf32>\n}\n",
                    &negate),
            nullptr);
  PJRT_Buffer* negateArguments[] = {errored};
  PJRT_Buffer* const* negateArgumentLists[] = {negateArguments};
  PJRT_Buffer* negated[1] = {};
  PJRT_Buffer** negatedLists[] = {negated};
  PJRT_Event* negateDone[1] = {};
  PJRT_ExecuteOptions options{sizeof(options)};
  options.call_location = "/home/me/train.py:12";
  PJRT_LoadedExecutable_Execute_Args execute{sizeof(execute)};
  execute.executable = negate;
  execute.options = &options;
  execute.argument_lists = negateArgumentLists;
  execute.num_devices = 1;
  execute.num_args = 1;
  execute.output_lists = negatedLists;
  execute.device_complete_events = negateDone;
  ASSERT_EQ(api_->PJRT_LoadedExecutable_Execute(&execute), nullptr);
  PJRT_Error* runFailed = await(negateDone[0]);
  ASSERT_NE(runFailed, nullptr);
  auto [ran, ranCode] = take(runFailed);
  EXPECT_EQ(ranCode, PJRT_Error_Code_NOT_FOUND);
  EXPECT_NE(ran.find("the sender went away\nnote: the call that failed: /home/me/train.py:12"), std::string::npos)
      << ran;
  download(negated[0], &failed);
  ASSERT_NE(failed, nullptr);
  auto [read, readCode] = take(failed);
  EXPECT_EQ(read, ran);
  destroyBuffer(negated[0]);
  PJRT_LoadedExecutable_Destroy_Args destroyNegate{sizeof(destroyNegate)};
  destroyNegate.executable = negate;
  EXPECT_EQ(api_->PJRT_LoadedExecutable_Destroy(&destroyNegate), nullptr);
  destroy.transfer_manager = manager;
  ASSERT_EQ(api_->PJRT_AsyncHostToDeviceTransferManager_Destroy(&destroy), nullptr);
  destroyBuffer(errored);

  // Layouts other than dense row-major are refused.
  int64_t columnMajor[] = {0, 1};
  PJRT_Buffer_MemoryLayout layout{sizeof(layout)};
  layout.type = PJRT_Buffer_MemoryLayout_Type_Tiled;
  layout.tiled.minor_to_major = columnMajor;
  layout.tiled.minor_to_major_size = 2;
  PJRT_Buffer_MemoryLayout* layouts[] = {&layout};
  second.device_layouts = layouts;
  second.num_device_layouts = 1;
  auto [refused, refusedCode] = take(api_->PJRT_Client_CreateBuffersForAsyncHostToDevice(&second));
  EXPECT_EQ(refusedCode, PJRT_Error_Code_UNIMPLEMENTED);
  EXPECT_EQ(refused, "kiln: error: kiln keeps arrays in the dense row-major layout only");
}

}  // namespace

// A plugin reporting 0.93 fills every slot of 0.93's table: jaxlib calls a
// function its version check allows without looking for null. What kiln
// does not implement answers UNIMPLEMENTED, naming the function.
TEST_F(PjrtCApiTest, EverySlotOfItsVersionIsFilled) {
  EXPECT_EQ(api_->pjrt_api_version.minor_version, 93);
  EXPECT_EQ(api_->struct_size, sizeof(PJRT_Api));
  auto slots = reinterpret_cast<void* const*>(&api_->PJRT_Error_Destroy);
  size_t count = (sizeof(PJRT_Api) - offsetof(PJRT_Api, PJRT_Error_Destroy)) / sizeof(void*);
  EXPECT_EQ(count, 129u);  // 0.93's table, PJRT_Error_Destroy .. PJRT_Device_GetAttributes
  for (size_t i = 0; i < count; ++i) EXPECT_NE(slots[i], nullptr) << "slot " << i;
  auto [message, code] = take(api_->PJRT_Client_CreateErrorBuffer(nullptr));
  EXPECT_EQ(code, PJRT_Error_Code_UNIMPLEMENTED);
  EXPECT_EQ(message,
            "kiln: PJRT_Client_CreateErrorBuffer is not implemented by kiln's PJRT plugin (docs/pjrt.md)");
}

// What jaxlib asks of every loaded executable from 0.79 and 0.87 on: its
// device assignment (an xla.DeviceAssignmentProto) and its compile options
// (the bytes it was compiled with); and the shardings extension answers
// "none" for a program without a mesh.
TEST_F(PjrtCApiTest, AnExecutableReportsItsDeviceAssignmentAndCompileOptions) {
  PJRT_LoadedExecutable* executable = nullptr;
  ASSERT_EQ(compile("func.func @main(%a: tensor<4xf32>) -> tensor<4xf32> {\n  func.return %a : tensor<4xf32>\n}\n",
                    &executable),
            nullptr);
  PJRT_LoadedExecutable_GetDeviceAssignment_Args assignment{sizeof(assignment)};
  assignment.executable = executable;
  ASSERT_EQ(api_->PJRT_LoadedExecutable_GetDeviceAssignment(&assignment), nullptr);
  // replica_count 1, computation_count 1, computation 0 on device 0.
  EXPECT_EQ(std::string(assignment.serialized_bytes, assignment.serialized_bytes_size),
            std::string("\x08\x01\x10\x01\x1a\x03\x0a\x01\x00", 9));
  assignment.serialized_device_assignment_deleter(assignment.serialized_device_assignment);

  PJRT_LoadedExecutable_GetExecutable_Args get{sizeof(get)};
  get.loaded_executable = executable;
  ASSERT_EQ(api_->PJRT_LoadedExecutable_GetExecutable(&get), nullptr);
  PJRT_Executable_GetCompileOptions_Args options{sizeof(options)};
  options.executable = get.executable;
  ASSERT_EQ(api_->PJRT_Executable_GetCompileOptions(&options), nullptr);
  EXPECT_EQ(options.serialized_bytes_size, 0u);  // compiled with no options
  options.serialized_compile_options_deleter(options.serialized_compile_options);

  for (auto* ext = api_->extension_start; ext; ext = ext->next) {
    if (ext->type != PJRT_Extension_Type_Shardings) continue;
    auto* shardings = reinterpret_cast<PJRT_Shardings_Extension*>(ext);
    PJRT_Shardings_Args outputs{sizeof(outputs)};
    outputs.executable = get.executable;
    ASSERT_EQ(shardings->PJRT_Shardings_PJRT_Executable_OutputShardings(&outputs), nullptr);
    EXPECT_EQ(outputs.shardings, nullptr);
  }
  PJRT_Executable_Destroy_Args destroyExecutable{sizeof(destroyExecutable)};
  destroyExecutable.executable = get.executable;
  EXPECT_EQ(api_->PJRT_Executable_Destroy(&destroyExecutable), nullptr);
  PJRT_LoadedExecutable_Destroy_Args destroy{sizeof(destroy)};
  destroy.executable = executable;
  EXPECT_EQ(api_->PJRT_LoadedExecutable_Destroy(&destroy), nullptr);
}

// Events the caller creates and sets (0.89), e.g. for cross-host transfers.
TEST_F(PjrtCApiTest, ACallerCreatedEventFiresWhenSet) {
  PJRT_Event_Create_Args create{sizeof(create)};
  ASSERT_EQ(api_->PJRT_Event_Create(&create), nullptr);
  PJRT_Event_IsReady_Args ready{sizeof(ready)};
  ready.event = create.event;
  ASSERT_EQ(api_->PJRT_Event_IsReady(&ready), nullptr);
  EXPECT_FALSE(ready.is_ready);
  PJRT_Event_Set_Args set{sizeof(set)};
  set.event = create.event;
  set.error_code = PJRT_Error_Code_NOT_FOUND;
  set.error_message = "gone";
  set.error_message_size = 4;
  ASSERT_EQ(api_->PJRT_Event_Set(&set), nullptr);
  auto [message, code] = take(api_->PJRT_Event_Set(&set));
  EXPECT_EQ(code, PJRT_Error_Code_FAILED_PRECONDITION);
  auto [awaited, awaitedCode] = take(await(create.event));
  EXPECT_EQ(awaitedCode, PJRT_Error_Code_NOT_FOUND);
  EXPECT_EQ(awaited, "kiln: error: gone");
}
