// Tests of .npy reading and writing against files written by numpy 2.4 with
// ml_dtypes 0.5 (tests/data/npy/, made by the script in tests/data/npy/README.md).
#include <gtest/gtest.h>

#include <bit>
#include <csignal>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <thread>

#include <sys/stat.h>

#include "kiln/tools/npy.h"

namespace kiln::npy {
namespace {

std::string fixturePath(const std::string& name) {
  return (std::filesystem::path(__FILE__).parent_path() / "../data/npy" / name).string();
}

std::string fileBytes(const std::string& name) {
  std::ifstream in(fixturePath(name), std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

template <typename T>
std::vector<uint8_t> bytesOf(std::initializer_list<T> values) {
  std::vector<uint8_t> out(values.size() * sizeof(T));
  std::memcpy(out.data(), std::data(values), out.size());
  return out;
}

Type tensorOf(std::initializer_list<int64_t> shape, TypeKind kind) {
  return Type::tensor(shape, Type::element(kind));
}

Array readFixture(const std::string& name) {
  Expected<Array> a = readFile(fixturePath(name));
  EXPECT_TRUE(a.isOk()) << a.status().message();
  return a.isOk() ? *a : Array{};
}

std::vector<uint8_t> storageOf(const std::string& name, Type type) {
  Expected<std::vector<uint8_t>> s = toStorage(readFixture(name), type);
  EXPECT_TRUE(s.isOk()) << s.status().message();
  return s.isOk() ? *s : std::vector<uint8_t>{};
}

std::string errorOf(const Array& array, Type type) {
  Expected<std::vector<uint8_t>> s = toStorage(array, type);
  return s.isOk() ? "no error" : s.status().diag().message;
}

const std::vector<uint8_t> kF32Values = bytesOf<float>({-1, -0.5, 0, 0.5, 1, 1.5});

TEST(Npy, ReadsFloat32Matrix) {
  Array a = readFixture("f32_2x3.npy");
  EXPECT_EQ(a.dtype.name(), "float32");
  EXPECT_EQ(a.shape, (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(storageOf("f32_2x3.npy", tensorOf({2, 3}, TypeKind::F32)), kF32Values);
}

TEST(Npy, WritesExactlyWhatNumpyWrites) {
  Expected<std::string> f32 = encode(tensorOf({2, 3}, TypeKind::F32), kF32Values);
  ASSERT_TRUE(f32.isOk());
  EXPECT_EQ(*f32, fileBytes("f32_2x3.npy"));

  Expected<std::string> empty = encode(tensorOf({0, 3}, TypeKind::F32), {});
  ASSERT_TRUE(empty.isOk());
  EXPECT_EQ(*empty, fileBytes("f32_0x3.npy"));

  Expected<std::string> scalar = encode(tensorOf({}, TypeKind::UI16), bytesOf<uint16_t>({65535}));
  ASSERT_TRUE(scalar.isOk());
  EXPECT_EQ(*scalar, fileBytes("u16_scalar.npy"));
}

TEST(Npy, TransposesFortranOrder) {
  EXPECT_EQ(storageOf("f32_2x3_fortran.npy", tensorOf({2, 3}, TypeKind::F32)), kF32Values);
}

TEST(Npy, SwapsBigEndianData) {
  EXPECT_EQ(storageOf("i64_bigendian.npy", tensorOf({3}, TypeKind::SI64)),
            bytesOf<int64_t>({1, -2, 3}));
  // Complex numbers swap each component, keeping the real part first.
  EXPECT_EQ(storageOf("c64_bigendian.npy", tensorOf({2}, TypeKind::Complex64)),
            bytesOf<float>({1, 2, -3.5, 0.25}));
}

TEST(Npy, ReadsBoolComplexScalarAndEmpty) {
  EXPECT_EQ(storageOf("bool_3.npy", tensorOf({3}, TypeKind::I1)), (std::vector<uint8_t>{1, 0, 1}));
  EXPECT_EQ(storageOf("c128_2.npy", tensorOf({2}, TypeKind::Complex128)),
            bytesOf<double>({1, 2, -3.5, 0.25}));
  EXPECT_EQ(storageOf("u16_scalar.npy", tensorOf({}, TypeKind::UI16)), bytesOf<uint16_t>({65535}));
  EXPECT_TRUE(storageOf("f32_0x3.npy", tensorOf({0, 3}, TypeKind::F32)).empty());
}

// numpy saves ml_dtypes arrays with raw descrs; the parameter's type decides.
TEST(Npy, ReadsRawMlDtypesArraysAsTheExpectedType) {
  // bfloat16 1.0, -2.5, 3.140625.
  EXPECT_EQ(storageOf("bf16_raw.npy", tensorOf({3}, TypeKind::BF16)),
            bytesOf<uint16_t>({0x3F80, 0xC020, 0x4049}));
  // float8_e4m3fn 0.5 = 0 0110 000, -448 = 1 1111 110.
  EXPECT_EQ(storageOf("f8e4m3fn_raw.npy", tensorOf({2}, TypeKind::F8E4M3FN)),
            (std::vector<uint8_t>{0x30, 0xFE}));
  // float8_e5m2 (numpy writes '<f1') 1.0 = 0 01111 00, -0.25 = 1 01101 00.
  EXPECT_EQ(storageOf("f8e5m2_raw.npy", tensorOf({2}, TypeKind::F8E5M2)),
            (std::vector<uint8_t>{0x3C, 0xB4}));
  // int4 -8, -1, 7: ml_dtypes keeps the low 4 bits, kiln sign-extends.
  EXPECT_EQ(storageOf("int4_raw.npy", tensorOf({3}, TypeKind::SI4)),
            (std::vector<uint8_t>{0xF8, 0xFF, 0x07}));
}

TEST(Npy, RawArraysDoNotStandInForNumpyTypes) {
  EXPECT_EQ(errorOf(readFixture("bf16_raw.npy"), tensorOf({3}, TypeKind::F16)),
            "expected tensor<3xf16>, got raw 2-byte ('<V2') array of shape (3,)");
}

TEST(Npy, MismatchNamesBothSides) {
  Expected<std::string> f64 = encode(tensorOf({3}, TypeKind::F64), bytesOf<double>({1, 2, 3}));
  ASSERT_TRUE(f64.isOk());
  Expected<Array> a = decode(*f64);
  ASSERT_TRUE(a.isOk());
  EXPECT_EQ(errorOf(*a, tensorOf({2, 3}, TypeKind::F32)),
            "expected tensor<2x3xf32>, got float64 array of shape (3,)");
  EXPECT_EQ(errorOf(*a, tensorOf({3}, TypeKind::F32)),
            "expected tensor<3xf32>, got float64 array of shape (3,)");
  EXPECT_EQ(errorOf(*a, tensorOf({4}, TypeKind::F64)),
            "expected tensor<4xf64>, got float64 array of shape (3,)");
}

// Every element type kiln can save comes back unchanged, under the dtype
// name numpy (or ml_dtypes) uses for it.
TEST(Npy, RoundTripsEveryDtype) {
  struct Case {
    TypeKind kind;
    const char* descr;
    std::vector<uint8_t> storage;  // two elements in kiln's layout
  };
  const Case cases[] = {
      {TypeKind::I1, "|b1", {1, 0}},
      {TypeKind::SI2, "int2", {0xFE, 0x01}},
      {TypeKind::SI4, "int4", {0xF8, 0x07}},
      {TypeKind::SI8, "|i1", {0x80, 0x7F}},
      {TypeKind::SI16, "<i2", bytesOf<int16_t>({-32768, 5})},
      {TypeKind::SI32, "<i4", bytesOf<int32_t>({-7, 1 << 30})},
      {TypeKind::SI64, "<i8", bytesOf<int64_t>({INT64_MIN, 9})},
      {TypeKind::UI2, "uint2", {3, 0}},
      {TypeKind::UI4, "uint4", {15, 1}},
      {TypeKind::UI8, "|u1", {255, 0}},
      {TypeKind::UI16, "<u2", bytesOf<uint16_t>({65535, 1})},
      {TypeKind::UI32, "<u4", bytesOf<uint32_t>({0xFFFFFFFF, 2})},
      {TypeKind::UI64, "<u8", bytesOf<uint64_t>({UINT64_MAX, 3})},
      {TypeKind::F16, "<f2", bytesOf<uint16_t>({0x3C00, 0xFC00})},
      {TypeKind::BF16, "bfloat16", bytesOf<uint16_t>({0x3F80, 0x7FC0})},
      {TypeKind::F32, "<f4", bytesOf<float>({1.5f, -0.0f})},
      {TypeKind::F64, "<f8", bytesOf<double>({1e300, -2})},
      {TypeKind::Complex64, "<c8", bytesOf<float>({1, 2, 3, 4})},
      {TypeKind::Complex128, "<c16", bytesOf<double>({1, 2, 3, 4})},
      {TypeKind::F8E3M4, "float8_e3m4", {0x30, 0x80}},
      {TypeKind::F8E4M3, "float8_e4m3", {0x38, 0xF8}},
      {TypeKind::F8E4M3FN, "float8_e4m3fn", {0x38, 0x7F}},
      {TypeKind::F8E4M3FNUZ, "float8_e4m3fnuz", {0x40, 0x80}},
      {TypeKind::F8E4M3B11FNUZ, "float8_e4m3b11fnuz", {0x58, 0x01}},
      {TypeKind::F8E5M2, "float8_e5m2", {0x3C, 0x7C}},
      {TypeKind::F8E5M2FNUZ, "float8_e5m2fnuz", {0x40, 0x80}},
      {TypeKind::F8E8M0FNU, "float8_e8m0fnu", {0x7F, 0xFF}},
      {TypeKind::F6E2M3FN, "float6_e2m3fn", {0x08, 0x3F}},
      {TypeKind::F6E3M2FN, "float6_e3m2fn", {0x0C, 0x3F}},
      {TypeKind::F4E2M1FN, "float4_e2m1fn", {0x02, 0x0F}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(elementKindName(c.kind));
    Type type = tensorOf({2}, c.kind);
    Expected<std::string> bytes = encode(type, c.storage);
    ASSERT_TRUE(bytes.isOk()) << bytes.status().message();
    EXPECT_NE(bytes->find(std::string("'descr': '") + c.descr + "'"), std::string::npos) << *bytes;
    Expected<Array> array = decode(*bytes);
    ASSERT_TRUE(array.isOk()) << array.status().message();
    EXPECT_EQ(array->dtype.descr, c.descr);
    Expected<std::vector<uint8_t>> storage = toStorage(*array, type);
    ASSERT_TRUE(storage.isOk()) << storage.status().message();
    EXPECT_EQ(*storage, c.storage);
  }
}

TEST(Npy, WritesSubByteIntegersInMlDtypesLowBitsForm) {
  Expected<std::string> bytes = encode(tensorOf({3}, TypeKind::SI4), std::vector<uint8_t>{0xF8, 0xFF, 0x07});
  ASSERT_TRUE(bytes.isOk());
  EXPECT_EQ(bytes->substr(bytes->size() - 3), std::string("\x08\x0F\x07"));
}

TEST(Npy, SavesQuantizedTensorsAsTheirStorageIntegers) {
  QuantParams q;
  q.storageType = Type::integer(8);
  q.expressedType = Type::f32();
  q.storageMin = -128;
  q.storageMax = 127;
  q.scales = {0.5};
  q.zeroPoints = {3};
  Type type = Type::tensor({2}, Type::quantized(q));
  Expected<std::string> bytes = encode(type, std::vector<uint8_t>{0x80, 0x05});
  ASSERT_TRUE(bytes.isOk());
  EXPECT_NE(bytes->find("'descr': '|i1'"), std::string::npos);
  Expected<Array> array = decode(*bytes);
  ASSERT_TRUE(array.isOk());
  Expected<std::vector<uint8_t>> storage = toStorage(*array, type);
  ASSERT_TRUE(storage.isOk());
  EXPECT_EQ(*storage, (std::vector<uint8_t>{0x80, 0x05}));
}

TEST(Npy, RejectsMalformedFiles) {
  auto decodeError = [](std::string_view bytes) {
    Expected<Array> a = decode(bytes);
    return a.isOk() ? "no error" : a.status().diag().message;
  };
  std::string good = fileBytes("f32_2x3.npy");
  EXPECT_EQ(decodeError("PK\x03\x04"), "not a .npy file (it does not start with \\x93NUMPY)");
  EXPECT_EQ(decodeError(good.substr(0, good.size() - 1)),
            "a float32 array of shape (2, 3) needs 24 data bytes, the file has 23");
  EXPECT_EQ(decodeError(good.substr(0, 20)), "truncated .npy header");

  auto withDict = [&](const std::string& dict) {
    std::string header = dict + "\n";  // unaligned: the reader must not care
    return std::string("\x93NUMPY\x01\x00", 8) + char(header.size() & 0xff) +
           char(header.size() >> 8) + header;
  };
  EXPECT_EQ(decodeError(withDict("{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (), }")),
            "malformed .npy header: structured dtypes are not supported");
  EXPECT_EQ(decodeError(withDict("{'descr': '<f16', 'fortran_order': False, 'shape': (), }")),
            "unsupported .npy dtype '<f16' (kiln has no element type for it)");
  EXPECT_EQ(decodeError(withDict("{'descr': '<U3', 'fortran_order': False, 'shape': (), }")),
            "unsupported .npy dtype '<U3' (kiln has no element type for it)");
  EXPECT_EQ(decodeError(withDict("{'descr': '<f4', 'shape': (), }")),
            "malformed .npy header: needs the keys 'descr', 'fortran_order' and 'shape'");
  EXPECT_EQ(decodeError(withDict("{'descr': '<f4', 'fortran_order': False, 'shape': (-1,), }")),
            "malformed .npy header: expected a tuple of integers for 'shape'");
  EXPECT_EQ(decodeError(withDict("{'descr': '<i99999999999', 'fortran_order': False, 'shape': (), }")),
            "unsupported .npy dtype '<i99999999999'");
  EXPECT_EQ(decodeError(withDict("{'descr': '<f4', 'fortran_order': False, 'shape': (999999999999, 999999999999), }")),
            "shape (999999999999, 999999999999) is too large");
  std::string v9 = good;
  v9[6] = 9;
  EXPECT_EQ(decodeError(v9), "unsupported .npy format version 9");
}

TEST(Npy, ReadsVersion2Headers) {
  std::string v1 = fileBytes("f32_2x3.npy");
  // Version 2.0 has a 4-byte header length; keep the same dict and data.
  uint16_t length = static_cast<uint8_t>(v1[8]) | static_cast<uint8_t>(v1[9]) << 8;
  std::string v2 = std::string("\x93NUMPY\x02\x00", 8) + char(length & 0xff) + char(length >> 8) +
                   std::string(2, '\0') + v1.substr(10);
  Expected<Array> a = decode(v2);
  ASSERT_TRUE(a.isOk()) << a.status().message();
  Expected<std::vector<uint8_t>> s = toStorage(*a, tensorOf({2, 3}, TypeKind::F32));
  ASSERT_TRUE(s.isOk());
  EXPECT_EQ(*s, kF32Values);
}

TEST(Npy, ReportsUnreadableFiles) {
  Expected<Array> a = readFile("/nonexistent/x.npy");
  ASSERT_FALSE(a.isOk());
  EXPECT_EQ(a.status().diag().message, "cannot open '/nonexistent/x.npy': No such file or directory");
}

std::string readError(const std::string& path) {
  Expected<Array> a = readFile(path);
  return a.isOk() ? "no error" : a.status().diag().message;
}

// A .npy v1.0 file: `dict` as its header, then `data`.
std::string npyBytes(const std::string& dict, const std::string& data) {
  std::string header = dict + "\n";
  return std::string("\x93NUMPY\x01\x00", 8) + char(header.size() & 0xff) + char(header.size() >> 8) + header + data;
}

std::string writeTemp(const std::string& name, const std::string& bytes) {
  std::string path = testing::TempDir() + name;
  std::ofstream(path, std::ios::binary) << bytes;
  return path;
}

// readFile looks at the magic and the header before reading anything large,
// and reads no more than the header declares: a directory, /dev/zero or a
// file shorter or longer than its header says is an error, not a crash or
// an endless read.
TEST(Npy, ReadFileChecksTheHeaderBeforeReadingTheData) {
  std::string dir = testing::TempDir();
  EXPECT_EQ(readError(dir), "'" + dir + "' is a directory, not a .npy file");
  EXPECT_EQ(readError("/dev/zero"), "/dev/zero: not a .npy file (it does not start with \\x93NUMPY)");

  std::string huge = writeTemp("huge.npy", npyBytes("{'descr': '<f4', 'fortran_order': False, "
                                                    "'shape': (1048576, 1048576), }", "abcd"));
  EXPECT_EQ(readError(huge), huge + ": a float32 array of shape (1048576, 1048576) needs 4398046511104 data bytes, "
                                    "the file has 4");
  std::string longer = writeTemp("longer.npy", npyBytes("{'descr': '<f4', 'fortran_order': False, 'shape': (1,), }",
                                                        "abcdabcd"));
  EXPECT_EQ(readError(longer), longer + ": a float32 array of shape (1,) needs 4 data bytes, the file has 8");
  std::string good = fileBytes("f32_2x3.npy");
  std::string truncated = writeTemp("truncated.npy", good.substr(0, 30));
  EXPECT_EQ(readError(truncated), truncated + ": truncated .npy header");
  std::string claim = writeTemp("claim.npy", std::string("\x93NUMPY\x02\x00\xff\xff\xff\xff{", 13));
  EXPECT_EQ(readError(claim), claim + ": the .npy header claims 4294967295 bytes (numpy writes a few hundred)");
}

// From a pipe, whose size is unknown, the data is read up to the declared
// size and one byte more, to tell that there is more.
TEST(Npy, ReadFileBoundsAStreamByTheDeclaredSize) {
  std::string fifo = testing::TempDir() + "npy_fifo";
  std::filesystem::remove(fifo);
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  signal(SIGPIPE, SIG_IGN);  // the reader may close before the writer is done
  std::thread writer([&] {
    std::ofstream out(fifo, std::ios::binary);
    out << npyBytes("{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }", std::string(4096, 'x'));
  });
  EXPECT_EQ(readError(fifo), fifo + ": a float32 array of shape (2,) needs 8 data bytes, the file has more");
  writer.join();
  std::filesystem::remove(fifo);
}

}  // namespace
}  // namespace kiln::npy
