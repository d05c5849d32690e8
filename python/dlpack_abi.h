/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The DLPack ABI, versions 0.x (DLManagedTensor) and 1.x
 * (DLManagedTensorVersioned), written from the DLPack specification
 * (https://dmlc.github.io/dlpack/latest/c_api.html). Our own declarations
 * because the dlpack.h Debian ships (0.6) has no versioned tensor; the
 * layouts must match the specification byte for byte, which the
 * static_asserts below pin down for the platforms we build on. */
#pragma once

#include <cstddef>
#include <cstdint>

namespace cspy {
namespace dl {

/* The ABI version we produce in versioned capsules. */
constexpr uint32_t kMajorVersion = 1;
constexpr uint32_t kMinorVersion = 0;

/* Capsule names of the Python DLPack protocol. */
constexpr const char * kCapsuleName = "dltensor";
constexpr const char * kUsedCapsuleName = "used_dltensor";
constexpr const char * kVersionedCapsuleName = "dltensor_versioned";
constexpr const char * kUsedVersionedCapsuleName = "used_dltensor_versioned";

/* DLDeviceType values we use. */
constexpr int32_t kDLCPU = 1;
constexpr int32_t kDLCUDA = 2;
constexpr int32_t kDLCUDAHost = 3;

/* DLDataTypeCode values we use. */
constexpr uint8_t kDLUInt = 1;
constexpr uint8_t kDLFloat = 2;

/* DLManagedTensorVersioned flags. */
constexpr uint64_t kFlagReadOnly = 1ull << 0;
constexpr uint64_t kFlagIsCopied = 1ull << 1;

struct DLPackVersion {
  uint32_t major;
  uint32_t minor;
};

struct DLDevice {
  int32_t device_type; /* an enum in the specification: int-sized */
  int32_t device_id;
};

struct DLDataType {
  uint8_t code;
  uint8_t bits;
  uint16_t lanes;
};

struct DLTensor {
  void * data;
  DLDevice device;
  int32_t ndim;
  DLDataType dtype;
  int64_t * shape;
  int64_t * strides; /* in elements; NULL means compact row-major */
  uint64_t byte_offset;
};

struct DLManagedTensor {
  DLTensor dl_tensor;
  void * manager_ctx;
  void (*deleter) (DLManagedTensor * self);
};

struct DLManagedTensorVersioned {
  DLPackVersion version;
  void * manager_ctx;
  void (*deleter) (DLManagedTensorVersioned * self);
  uint64_t flags;
  DLTensor dl_tensor;
};

static_assert (sizeof (DLDevice) == 8, "DLDevice is two 32-bit integers");
static_assert (sizeof (DLDataType) == 4, "DLDataType is packed in 32 bits");
static_assert (offsetof (DLTensor, byte_offset) == 40, "DLTensor layout");
static_assert (offsetof (DLManagedTensorVersioned, dl_tensor) == 32,
    "DLManagedTensorVersioned layout");

} // namespace dl
} // namespace cspy
