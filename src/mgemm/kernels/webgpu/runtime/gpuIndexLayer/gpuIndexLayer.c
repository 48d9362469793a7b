// A Vulkan instance layer that makes identical GPUs distinguishable by name: it appends
// " [gpu I of N]" to each physical device's name, I being the device's position in the order the
// loader enumerates them (stable across processes: the loader sorts by PCI address on Linux).
//
// Why: Dawn's Node bindings pick an adapter only by a substring of its name (`create(['adapter=…'])`),
// and several GPUs of one model have the same name ("NVIDIA H200"); GPURequestAdapterOptions has no
// index, the loader's VK_LOADER_DEVICE_SELECT and Mesa's device-select layer key on vendor:device IDs
// (equal for identical GPUs), and NVIDIA's Vulkan driver ignores CUDA_VISIBLE_DEVICES. With this
// layer, `adapter=[gpu 1 of 2]` names exactly one GPU, per Dawn instance, so in-process ranks (threads
// of one process) can each take their own GPU without touching the process environment.
//
// Enabled by the engine through VK_LAYER_PATH (build/vulkan) and VK_INSTANCE_LAYERS. Only names
// change; every other call passes through. Thread-safe: in-process ranks create instances concurrently.

#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <vulkan/vk_layer.h>

#define LAYER_NAME "VK_LAYER_SNPTALLY_gpu_index"
#define EXPORT __attribute__((visibility("default")))
/* Table sizes: a process holds a few instances (one per rank thread) and devices (one per rank). */
#define MAX_INSTANCES 128
#define MAX_PHYSICAL_DEVICES 1024
#define MAX_DEVICES 128

typedef struct {
  VkInstance instance;
  /* The loader's dispatch table pointer, shared by the instance and its physical devices. */
  void *dispatchKey;
  PFN_vkGetInstanceProcAddr nextGetInstanceProcAddr;
  PFN_vkDestroyInstance nextDestroyInstance;
  PFN_vkEnumeratePhysicalDevices nextEnumeratePhysicalDevices;
  PFN_vkGetPhysicalDeviceProperties nextGetPhysicalDeviceProperties;
  PFN_vkGetPhysicalDeviceProperties2 nextGetPhysicalDeviceProperties2;
  PFN_vkGetPhysicalDeviceProperties2 nextGetPhysicalDeviceProperties2KHR;
} InstanceEntry;

typedef struct {
  VkPhysicalDevice physicalDevice;
  void *dispatchKey;
  uint32_t index;
  uint32_t count;
} PhysicalDeviceEntry;

typedef struct {
  VkDevice device;
  PFN_vkGetDeviceProcAddr nextGetDeviceProcAddr;
  PFN_vkDestroyDevice nextDestroyDevice;
} DeviceEntry;

/* Dispatchable handles start with the loader's dispatch table pointer (the Vulkan layer convention). */
static void *dispatchKeyOf(const void *handle) { return *(void *const *)handle; }

static pthread_mutex_t tableLock = PTHREAD_MUTEX_INITIALIZER;
static InstanceEntry instances[MAX_INSTANCES];
static PhysicalDeviceEntry physicalDevices[MAX_PHYSICAL_DEVICES];
static DeviceEntry devices[MAX_DEVICES];

/* Lookups return copies taken under the lock, so a concurrent destroy cannot tear them. */
static int findInstance(void *dispatchKey, InstanceEntry *out) {
  int found = 0;
  pthread_mutex_lock(&tableLock);
  for (int i = 0; i < MAX_INSTANCES && !found; i++) {
    if (instances[i].instance != VK_NULL_HANDLE && instances[i].dispatchKey == dispatchKey) { *out = instances[i]; found = 1; }
  }
  pthread_mutex_unlock(&tableLock);
  return found;
}

static int findPhysicalDevice(VkPhysicalDevice physicalDevice, PhysicalDeviceEntry *out) {
  int found = 0;
  pthread_mutex_lock(&tableLock);
  for (int i = 0; i < MAX_PHYSICAL_DEVICES && !found; i++) {
    if (physicalDevices[i].physicalDevice == physicalDevice && physicalDevice != VK_NULL_HANDLE) { *out = physicalDevices[i]; found = 1; }
  }
  pthread_mutex_unlock(&tableLock);
  return found;
}

static int findDevice(VkDevice device, DeviceEntry *out) {
  int found = 0;
  pthread_mutex_lock(&tableLock);
  for (int i = 0; i < MAX_DEVICES && !found; i++) {
    if (devices[i].device == device && device != VK_NULL_HANDLE) { *out = devices[i]; found = 1; }
  }
  pthread_mutex_unlock(&tableLock);
  return found;
}

static void rememberPhysicalDevice(VkPhysicalDevice physicalDevice, uint32_t index, uint32_t count) {
  pthread_mutex_lock(&tableLock);
  int slot = -1;
  for (int i = 0; i < MAX_PHYSICAL_DEVICES; i++) {
    if (physicalDevices[i].physicalDevice == physicalDevice) { slot = i; break; }
    if (slot < 0 && physicalDevices[i].physicalDevice == VK_NULL_HANDLE) slot = i;
  }
  /* A full table only loses the name suffix; the engine then reports the GPU index as unknown. */
  if (slot >= 0) physicalDevices[slot] = (PhysicalDeviceEntry){ physicalDevice, dispatchKeyOf(physicalDevice), index, count };
  pthread_mutex_unlock(&tableLock);
}

static void appendIndex(VkPhysicalDevice physicalDevice, char *deviceName) {
  PhysicalDeviceEntry entry;
  if (!findPhysicalDevice(physicalDevice, &entry)) return;
  size_t length = strlen(deviceName);  /* null-terminated by the Vulkan spec */
  snprintf(deviceName + length, VK_MAX_PHYSICAL_DEVICE_NAME_SIZE - length, " [gpu %u of %u]", entry.index, entry.count);
}

static VKAPI_ATTR VkResult VKAPI_CALL layerEnumeratePhysicalDevices(VkInstance instance, uint32_t *count, VkPhysicalDevice *out) {
  InstanceEntry entry;
  if (!findInstance(dispatchKeyOf(instance), &entry)) return VK_ERROR_INITIALIZATION_FAILED;
  VkResult result = entry.nextEnumeratePhysicalDevices(instance, count, out);
  if (out == NULL || (result != VK_SUCCESS && result != VK_INCOMPLETE)) return result;
  /* The total, also when the caller asked for fewer: "of N" counts every GPU. */
  uint32_t total = 0;
  if (entry.nextEnumeratePhysicalDevices(instance, &total, NULL) != VK_SUCCESS) total = *count;
  for (uint32_t i = 0; i < *count; i++) rememberPhysicalDevice(out[i], i, total);
  return result;
}

static VKAPI_ATTR void VKAPI_CALL layerGetPhysicalDeviceProperties(VkPhysicalDevice physicalDevice, VkPhysicalDeviceProperties *properties) {
  InstanceEntry entry;
  if (!findInstance(dispatchKeyOf(physicalDevice), &entry)) return;
  entry.nextGetPhysicalDeviceProperties(physicalDevice, properties);
  appendIndex(physicalDevice, properties->deviceName);
}

static void getProperties2(VkPhysicalDevice physicalDevice, VkPhysicalDeviceProperties2 *properties, int khr) {
  InstanceEntry entry;
  if (!findInstance(dispatchKeyOf(physicalDevice), &entry)) return;
  PFN_vkGetPhysicalDeviceProperties2 next = khr ? entry.nextGetPhysicalDeviceProperties2KHR : entry.nextGetPhysicalDeviceProperties2;
  next(physicalDevice, properties);
  appendIndex(physicalDevice, properties->properties.deviceName);
}

static VKAPI_ATTR void VKAPI_CALL layerGetPhysicalDeviceProperties2(VkPhysicalDevice physicalDevice, VkPhysicalDeviceProperties2 *properties) {
  getProperties2(physicalDevice, properties, 0);
}

static VKAPI_ATTR void VKAPI_CALL layerGetPhysicalDeviceProperties2KHR(VkPhysicalDevice physicalDevice, VkPhysicalDeviceProperties2 *properties) {
  getProperties2(physicalDevice, properties, 1);
}

static VKAPI_ATTR VkResult VKAPI_CALL layerCreateInstance(const VkInstanceCreateInfo *info, const VkAllocationCallbacks *allocator, VkInstance *instance) {
  VkLayerInstanceCreateInfo *link = (VkLayerInstanceCreateInfo *)info->pNext;
  while (link != NULL && !(link->sType == VK_STRUCTURE_TYPE_LOADER_INSTANCE_CREATE_INFO && link->function == VK_LAYER_LINK_INFO)) {
    link = (VkLayerInstanceCreateInfo *)link->pNext;
  }
  if (link == NULL) return VK_ERROR_INITIALIZATION_FAILED;
  PFN_vkGetInstanceProcAddr nextGetInstanceProcAddr = link->u.pLayerInfo->pfnNextGetInstanceProcAddr;
  link->u.pLayerInfo = link->u.pLayerInfo->pNext;  /* the next layer finds its own link */
  PFN_vkCreateInstance nextCreateInstance = (PFN_vkCreateInstance)nextGetInstanceProcAddr(VK_NULL_HANDLE, "vkCreateInstance");
  VkResult result = nextCreateInstance(info, allocator, instance);
  if (result != VK_SUCCESS) return result;
  InstanceEntry entry = {
    .instance = *instance,
    .dispatchKey = dispatchKeyOf(*instance),
    .nextGetInstanceProcAddr = nextGetInstanceProcAddr,
    .nextDestroyInstance = (PFN_vkDestroyInstance)nextGetInstanceProcAddr(*instance, "vkDestroyInstance"),
    .nextEnumeratePhysicalDevices = (PFN_vkEnumeratePhysicalDevices)nextGetInstanceProcAddr(*instance, "vkEnumeratePhysicalDevices"),
    .nextGetPhysicalDeviceProperties = (PFN_vkGetPhysicalDeviceProperties)nextGetInstanceProcAddr(*instance, "vkGetPhysicalDeviceProperties"),
    .nextGetPhysicalDeviceProperties2 = (PFN_vkGetPhysicalDeviceProperties2)nextGetInstanceProcAddr(*instance, "vkGetPhysicalDeviceProperties2"),
    .nextGetPhysicalDeviceProperties2KHR = (PFN_vkGetPhysicalDeviceProperties2)nextGetInstanceProcAddr(*instance, "vkGetPhysicalDeviceProperties2KHR"),
  };
  int stored = 0;
  pthread_mutex_lock(&tableLock);
  for (int i = 0; i < MAX_INSTANCES && !stored; i++) {
    if (instances[i].instance == VK_NULL_HANDLE) { instances[i] = entry; stored = 1; }
  }
  pthread_mutex_unlock(&tableLock);
  if (!stored) {
    entry.nextDestroyInstance(*instance, allocator);
    return VK_ERROR_TOO_MANY_OBJECTS;
  }
  return VK_SUCCESS;
}

static VKAPI_ATTR void VKAPI_CALL layerDestroyInstance(VkInstance instance, const VkAllocationCallbacks *allocator) {
  InstanceEntry entry;
  if (!findInstance(dispatchKeyOf(instance), &entry)) return;
  pthread_mutex_lock(&tableLock);
  for (int i = 0; i < MAX_INSTANCES; i++) {
    if (instances[i].instance == instance) instances[i].instance = VK_NULL_HANDLE;
  }
  for (int i = 0; i < MAX_PHYSICAL_DEVICES; i++) {
    if (physicalDevices[i].dispatchKey == entry.dispatchKey) physicalDevices[i].physicalDevice = VK_NULL_HANDLE;
  }
  pthread_mutex_unlock(&tableLock);
  entry.nextDestroyInstance(instance, allocator);
}

static VKAPI_ATTR VkResult VKAPI_CALL layerCreateDevice(VkPhysicalDevice physicalDevice, const VkDeviceCreateInfo *info,
                                                       const VkAllocationCallbacks *allocator, VkDevice *device) {
  VkLayerDeviceCreateInfo *link = (VkLayerDeviceCreateInfo *)info->pNext;
  while (link != NULL && !(link->sType == VK_STRUCTURE_TYPE_LOADER_DEVICE_CREATE_INFO && link->function == VK_LAYER_LINK_INFO)) {
    link = (VkLayerDeviceCreateInfo *)link->pNext;
  }
  InstanceEntry instance;
  if (link == NULL || !findInstance(dispatchKeyOf(physicalDevice), &instance)) return VK_ERROR_INITIALIZATION_FAILED;
  PFN_vkGetInstanceProcAddr nextGetInstanceProcAddr = link->u.pLayerInfo->pfnNextGetInstanceProcAddr;
  PFN_vkGetDeviceProcAddr nextGetDeviceProcAddr = link->u.pLayerInfo->pfnNextGetDeviceProcAddr;
  link->u.pLayerInfo = link->u.pLayerInfo->pNext;
  PFN_vkCreateDevice nextCreateDevice = (PFN_vkCreateDevice)nextGetInstanceProcAddr(instance.instance, "vkCreateDevice");
  VkResult result = nextCreateDevice(physicalDevice, info, allocator, device);
  if (result != VK_SUCCESS) return result;
  DeviceEntry entry = { *device, nextGetDeviceProcAddr, (PFN_vkDestroyDevice)nextGetDeviceProcAddr(*device, "vkDestroyDevice") };
  int stored = 0;
  pthread_mutex_lock(&tableLock);
  for (int i = 0; i < MAX_DEVICES && !stored; i++) {
    if (devices[i].device == VK_NULL_HANDLE) { devices[i] = entry; stored = 1; }
  }
  pthread_mutex_unlock(&tableLock);
  if (!stored) {
    entry.nextDestroyDevice(*device, allocator);
    return VK_ERROR_TOO_MANY_OBJECTS;
  }
  return VK_SUCCESS;
}

static VKAPI_ATTR void VKAPI_CALL layerDestroyDevice(VkDevice device, const VkAllocationCallbacks *allocator) {
  DeviceEntry entry;
  if (!findDevice(device, &entry)) return;
  pthread_mutex_lock(&tableLock);
  for (int i = 0; i < MAX_DEVICES; i++) {
    if (devices[i].device == device) devices[i].device = VK_NULL_HANDLE;
  }
  pthread_mutex_unlock(&tableLock);
  entry.nextDestroyDevice(device, allocator);
}

static VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL layerGetDeviceProcAddr(VkDevice device, const char *name) {
  if (strcmp(name, "vkGetDeviceProcAddr") == 0) return (PFN_vkVoidFunction)layerGetDeviceProcAddr;
  if (strcmp(name, "vkDestroyDevice") == 0) return (PFN_vkVoidFunction)layerDestroyDevice;
  DeviceEntry entry;
  return findDevice(device, &entry) ? entry.nextGetDeviceProcAddr(device, name) : NULL;
}

static VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL layerGetInstanceProcAddr(VkInstance instance, const char *name) {
  if (strcmp(name, "vkGetInstanceProcAddr") == 0) return (PFN_vkVoidFunction)layerGetInstanceProcAddr;
  if (strcmp(name, "vkCreateInstance") == 0) return (PFN_vkVoidFunction)layerCreateInstance;
  if (strcmp(name, "vkGetDeviceProcAddr") == 0) return (PFN_vkVoidFunction)layerGetDeviceProcAddr;
  InstanceEntry entry;
  if (instance == VK_NULL_HANDLE || !findInstance(dispatchKeyOf(instance), &entry)) return NULL;
  PFN_vkVoidFunction next = entry.nextGetInstanceProcAddr(instance, name);
  if (next == NULL) return NULL;  /* keep "not supported" answers as they are */
  if (strcmp(name, "vkDestroyInstance") == 0) return (PFN_vkVoidFunction)layerDestroyInstance;
  if (strcmp(name, "vkEnumeratePhysicalDevices") == 0) return (PFN_vkVoidFunction)layerEnumeratePhysicalDevices;
  if (strcmp(name, "vkGetPhysicalDeviceProperties") == 0) return (PFN_vkVoidFunction)layerGetPhysicalDeviceProperties;
  if (strcmp(name, "vkGetPhysicalDeviceProperties2") == 0) return (PFN_vkVoidFunction)layerGetPhysicalDeviceProperties2;
  if (strcmp(name, "vkGetPhysicalDeviceProperties2KHR") == 0) return (PFN_vkVoidFunction)layerGetPhysicalDeviceProperties2KHR;
  if (strcmp(name, "vkCreateDevice") == 0) return (PFN_vkVoidFunction)layerCreateDevice;
  if (strcmp(name, "vkDestroyDevice") == 0) return (PFN_vkVoidFunction)layerDestroyDevice;
  return next;
}

/* Loader-layer interface version 2: the loader asks for our entry points here. */
EXPORT VKAPI_ATTR VkResult VKAPI_CALL vkNegotiateLoaderLayerInterfaceVersion(VkNegotiateLayerInterface *version) {
  if (version->sType != LAYER_NEGOTIATE_INTERFACE_STRUCT || version->loaderLayerInterfaceVersion < 2) return VK_ERROR_INITIALIZATION_FAILED;
  version->loaderLayerInterfaceVersion = 2;
  version->pfnGetInstanceProcAddr = layerGetInstanceProcAddr;
  version->pfnGetDeviceProcAddr = layerGetDeviceProcAddr;
  version->pfnGetPhysicalDeviceProcAddr = NULL;
  return VK_SUCCESS;
}
