# SPDX-License-Identifier: LGPL-2.1-or-later
"""Shared by the Python tests: a runner that reports each check, prints a
summary line and exits non-zero when one failed, and the helpers that read
DLPack capsules through ctypes."""
import ctypes
import faulthandler
import sys
import traceback


class Runner:
    def __init__(self, name):
        # A crash in the extension shows the Python stack it happened under.
        faulthandler.enable()
        self.name = name
        self.passed = 0
        self.failed = []

    def run(self, fn, *args):
        label = fn.__name__ + (repr(args) if args else "")
        try:
            fn(*args)
        except Exception:  # a failed check, whatever raised it
            traceback.print_exc()
            print(f"FAIL {label}", flush=True)
            self.failed.append(label)
        else:
            print(f"ok   {label}", flush=True)
            self.passed += 1

    def finish(self):
        print(f"{self.name}: {self.passed} passed, {len(self.failed)} failed"
              + (f" ({', '.join(self.failed)})" if self.failed else ""))
        sys.exit(1 if self.failed else 0)


# --- DLPack capsules as the C ABI sees them (python/dlpack_abi.h) ---------

class DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class DLTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device", DLDevice), ("ndim", ctypes.c_int32),
                ("dtype", DLDataType), ("shape", ctypes.POINTER(ctypes.c_int64)),
                ("strides", ctypes.POINTER(ctypes.c_int64)), ("byte_offset", ctypes.c_uint64)]


class DLManagedTensor(ctypes.Structure):
    pass


DLManagedTensor._fields_ = [("dl_tensor", DLTensor), ("manager_ctx", ctypes.c_void_p),
                            ("deleter", ctypes.CFUNCTYPE(None, ctypes.POINTER(DLManagedTensor)))]


class DLPackVersion(ctypes.Structure):
    _fields_ = [("major", ctypes.c_uint32), ("minor", ctypes.c_uint32)]


class DLManagedTensorVersioned(ctypes.Structure):
    pass


DLManagedTensorVersioned._fields_ = [
    ("version", DLPackVersion), ("manager_ctx", ctypes.c_void_p),
    ("deleter", ctypes.CFUNCTYPE(None, ctypes.POINTER(DLManagedTensorVersioned))),
    ("flags", ctypes.c_uint64), ("dl_tensor", DLTensor)]

_api = ctypes.pythonapi
_api.PyCapsule_GetName.restype = ctypes.c_char_p
_api.PyCapsule_GetName.argtypes = [ctypes.py_object]
_api.PyCapsule_IsValid.restype = ctypes.c_int
_api.PyCapsule_IsValid.argtypes = [ctypes.py_object, ctypes.c_char_p]
_api.PyCapsule_GetPointer.restype = ctypes.c_void_p
_api.PyCapsule_GetPointer.argtypes = [ctypes.py_object, ctypes.c_char_p]
_api.PyCapsule_New.restype = ctypes.py_object
_api.PyCapsule_New.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]


def capsule_name(cap):
    return _api.PyCapsule_GetName(cap).decode()


def capsule_valid(cap, name):
    return _api.PyCapsule_IsValid(cap, name.encode()) == 1


def managed_tensor(cap):
    """The DLManagedTensor(Versioned) of an unconsumed capsule (not consumed
    by this: the capsule still frees it)."""
    name = capsule_name(cap)
    ptr = _api.PyCapsule_GetPointer(cap, name.encode())
    kind = DLManagedTensorVersioned if name == "dltensor_versioned" else DLManagedTensor
    return kind.from_address(ptr)


def tensor_fields(t):
    """(data, device, shape, strides, dtype) of a DLTensor."""
    shape = tuple(t.shape[i] for i in range(t.ndim))
    strides = tuple(t.strides[i] for i in range(t.ndim)) if t.strides else None
    return (t.data + t.byte_offset, (t.device.device_type, t.device.device_id), shape, strides,
            (t.dtype.code, t.dtype.bits, t.dtype.lanes))
