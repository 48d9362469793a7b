// Thin Node-API binding over MPI: handles for communicators, requests and matched messages; no logic.
//
// Every call is made on Node's main thread (MPI_THREAD_FUNNELED). Non-blocking operations return a
// request id; JavaScript polls `testRequests` (which also drives Open MPI's progress engine) and keeps
// the typed arrays alive through the references held here until their request completes.
#include <dlfcn.h>
#include <mpi.h>
#include <napi.h>

#include <cstdint>
#include <limits>
#include <string>
#include <unordered_map>
#include <vector>

namespace {

/** What a pending request needs: the MPI handle and the array MPI reads or writes meanwhile. */
struct PendingRequest {
  MPI_Request request;
  Napi::ObjectReference buffer;
};

std::vector<MPI_Comm> comms;  // comms[0] is MPI_COMM_WORLD once initialized; freed slots hold MPI_COMM_NULL
std::unordered_map<uint32_t, PendingRequest> requests;
std::unordered_map<uint32_t, MPI_Message> matchedMessages;
uint32_t nextRequestId = 1;
uint32_t nextMessageId = 1;

std::string mpiErrorText(int code) {
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  if (MPI_Error_string(code, text, &length) != MPI_SUCCESS) return "MPI error " + std::to_string(code);
  return std::string(text, length);
}

void check(Napi::Env env, int code, const char* what) {
  if (code != MPI_SUCCESS) throw Napi::Error::New(env, std::string(what) + ": " + mpiErrorText(code));
}

MPI_Comm commArg(const Napi::CallbackInfo& info, size_t index) {
  uint32_t handle = info[index].As<Napi::Number>().Uint32Value();
  if (handle >= comms.size() || comms[handle] == MPI_COMM_NULL) {
    throw Napi::Error::New(info.Env(), "invalid communicator handle " + std::to_string(handle));
  }
  return comms[handle];
}

int intArg(const Napi::CallbackInfo& info, size_t index) {
  return info[index].As<Napi::Number>().Int32Value();
}

/** The element type of a typed array as an MPI datatype (Uint8, Uint32, Float64 only). */
MPI_Datatype datatypeOf(Napi::Env env, const Napi::TypedArray& array) {
  switch (array.TypedArrayType()) {
    case napi_uint8_array: return MPI_UINT8_T;
    case napi_uint32_array: return MPI_UINT32_T;
    case napi_float64_array: return MPI_DOUBLE;
    default: throw Napi::TypeError::New(env, "only Uint8Array, Uint32Array and Float64Array travel over MPI");
  }
}

int countOf(Napi::Env env, size_t count) {
  if (count > static_cast<size_t>(std::numeric_limits<int>::max())) {
    throw Napi::RangeError::New(env, "message of " + std::to_string(count) + " elements exceeds MPI's int count");
  }
  return static_cast<int>(count);
}

/**
 * The first byte of a typed array's view. Read through napi_get_typedarray_info, which also serves views of
 * SharedArrayBuffers (napi_get_arraybuffer_info refuses those), so shared vector blocks go out without a copy.
 */
void* dataOf(Napi::Env env, const Napi::TypedArray& array) {
  void* data = nullptr;
  if (napi_get_typedarray_info(env, array, nullptr, nullptr, &data, nullptr, nullptr) != napi_ok) {
    throw Napi::Error::New(env, "cannot read the typed array's memory");
  }
  return data;
}

Napi::Number track(Napi::Env env, MPI_Request request, const Napi::TypedArray& buffer) {
  uint32_t id = nextRequestId++;
  PendingRequest& pending = requests[id];
  pending.request = request;
  pending.buffer = Napi::Persistent(static_cast<Napi::Object>(buffer));
  return Napi::Number::New(env, id);
}

/** init() → { provided, threadFunneled }: loads libmpi globally so Open MPI's plugins resolve, then MPI_Init_thread. */
Napi::Value Init(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (initialized) throw Napi::Error::New(env, "MPI is already initialized");
  std::string library = info[0].As<Napi::String>().Utf8Value();
  if (dlopen(library.c_str(), RTLD_NOW | RTLD_GLOBAL) == nullptr) {
    const char* reason = dlerror();
    throw Napi::Error::New(env, "cannot load " + library + ": " + (reason ? reason : "unknown reason"));
  }
  int provided = 0;
  check(env, MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided), "MPI_Init_thread");
  // Errors come back as return codes (thrown to JavaScript) instead of killing the job without a message.
  check(env, MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN), "MPI_Comm_set_errhandler");
  comms.assign(1, MPI_COMM_WORLD);
  Napi::Object result = Napi::Object::New(env);
  result.Set("provided", provided);
  result.Set("threadFunneled", provided >= MPI_THREAD_FUNNELED);
  return result;
}

Napi::Value Finalize(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (!requests.empty()) throw Napi::Error::New(env, std::to_string(requests.size()) + " MPI requests still pending");
  for (size_t handle = 1; handle < comms.size(); handle++) {
    if (comms[handle] != MPI_COMM_NULL) MPI_Comm_free(&comms[handle]);
  }
  comms.clear();
  check(env, MPI_Finalize(), "MPI_Finalize");
  return env.Undefined();
}

Napi::Value CommRank(const Napi::CallbackInfo& info) {
  int rank = 0;
  check(info.Env(), MPI_Comm_rank(commArg(info, 0), &rank), "MPI_Comm_rank");
  return Napi::Number::New(info.Env(), rank);
}

Napi::Value CommSize(const Napi::CallbackInfo& info) {
  int size = 0;
  check(info.Env(), MPI_Comm_size(commArg(info, 0), &size), "MPI_Comm_size");
  return Napi::Number::New(info.Env(), size);
}

Napi::Value AddComm(Napi::Env env, MPI_Comm comm) {
  comms.push_back(comm);
  return Napi::Number::New(env, static_cast<double>(comms.size() - 1));
}

/** commSplit(comm, color, key) → handle (MPI_Comm_split; blocking, collective over comm). */
Napi::Value CommSplit(const Napi::CallbackInfo& info) {
  MPI_Comm split = MPI_COMM_NULL;
  check(info.Env(), MPI_Comm_split(commArg(info, 0), intArg(info, 1), intArg(info, 2), &split), "MPI_Comm_split");
  return AddComm(info.Env(), split);
}

/** commSplitShared(comm) → handle of the ranks sharing this node's memory (MPI_Comm_split_type). */
Napi::Value CommSplitShared(const Napi::CallbackInfo& info) {
  MPI_Comm split = MPI_COMM_NULL;
  check(info.Env(), MPI_Comm_split_type(commArg(info, 0), MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &split),
        "MPI_Comm_split_type");
  return AddComm(info.Env(), split);
}

Napi::Value CommFree(const Napi::CallbackInfo& info) {
  uint32_t handle = info[0].As<Napi::Number>().Uint32Value();
  if (handle == 0 || handle >= comms.size() || comms[handle] == MPI_COMM_NULL) {
    throw Napi::Error::New(info.Env(), "cannot free communicator handle " + std::to_string(handle));
  }
  check(info.Env(), MPI_Comm_free(&comms[handle]), "MPI_Comm_free");
  return info.Env().Undefined();
}

/** tagUpperBound() → MPI_TAG_UB of MPI_COMM_WORLD. */
Napi::Value TagUpperBound(const Napi::CallbackInfo& info) {
  int* value = nullptr;
  int flag = 0;
  check(info.Env(), MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &value, &flag), "MPI_Comm_get_attr");
  return Napi::Number::New(info.Env(), flag ? *value : 32767);
}

/** isend(comm, dest, tag, array) → request id; the array's bytes are sent as MPI_BYTE. */
Napi::Value Isend(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Napi::TypedArray array = info[3].As<Napi::TypedArray>();
  datatypeOf(env, array);
  void* data = dataOf(env, array);
  MPI_Request request;
  check(env, MPI_Isend(data, countOf(env, array.ByteLength()), MPI_BYTE, intArg(info, 1), intArg(info, 2),
                       commArg(info, 0), &request), "MPI_Isend");
  return track(env, request, array);
}

/** improbe(comm, source, tag) → null, or { messageId, byteLength } of the next matching message. */
Napi::Value Improbe(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  int flag = 0;
  MPI_Message message;
  MPI_Status status;
  check(env, MPI_Improbe(intArg(info, 1), intArg(info, 2), commArg(info, 0), &flag, &message, &status), "MPI_Improbe");
  if (!flag) return env.Null();
  int byteLength = 0;
  check(env, MPI_Get_count(&status, MPI_BYTE, &byteLength), "MPI_Get_count");
  uint32_t id = nextMessageId++;
  matchedMessages[id] = message;
  Napi::Object result = Napi::Object::New(env);
  result.Set("messageId", id);
  result.Set("byteLength", byteLength);
  return result;
}

/** imrecv(messageId, array) → request id: receives a message matched by improbe into array. */
Napi::Value Imrecv(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  uint32_t id = info[0].As<Napi::Number>().Uint32Value();
  auto found = matchedMessages.find(id);
  if (found == matchedMessages.end()) throw Napi::Error::New(env, "unknown matched message " + std::to_string(id));
  MPI_Message message = found->second;
  matchedMessages.erase(found);
  Napi::TypedArray array = info[1].As<Napi::TypedArray>();
  void* data = dataOf(env, array);
  MPI_Request request;
  check(env, MPI_Imrecv(data, countOf(env, array.ByteLength()), MPI_BYTE, &message, &request), "MPI_Imrecv");
  return track(env, request, array);
}

/** iallreduceSum(comm, array) → request id: element-wise sum in place (MPI_Iallreduce, MPI_IN_PLACE). */
Napi::Value IallreduceSum(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Napi::TypedArray array = info[1].As<Napi::TypedArray>();
  MPI_Datatype type = datatypeOf(env, array);
  void* data = dataOf(env, array);
  MPI_Request request;
  check(env, MPI_Iallreduce(MPI_IN_PLACE, data, countOf(env, array.ElementLength()), type, MPI_SUM,
                            commArg(info, 0), &request), "MPI_Iallreduce");
  return track(env, request, array);
}

/** ibcast(comm, root, array) → request id (MPI_Ibcast; every rank passes an array of the same length). */
Napi::Value Ibcast(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Napi::TypedArray array = info[2].As<Napi::TypedArray>();
  MPI_Datatype type = datatypeOf(env, array);
  void* data = dataOf(env, array);
  MPI_Request request;
  check(env, MPI_Ibcast(data, countOf(env, array.ElementLength()), type, intArg(info, 1), commArg(info, 0), &request),
        "MPI_Ibcast");
  return track(env, request, array);
}

/** ibarrier(comm) → request id. */
Napi::Value Ibarrier(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  MPI_Request request;
  check(env, MPI_Ibarrier(commArg(info, 0), &request), "MPI_Ibarrier");
  uint32_t id = nextRequestId++;
  requests[id].request = request;
  return Napi::Number::New(env, id);
}

/**
 * testRequests(spinMicroseconds = 0) → ids of the requests that completed (MPI_Test on each); releases their
 * arrays. With a spin, tests again until one completes or the time is up: Open MPI moves a large message a
 * fragment per call, so back-to-back calls here move it at memory speed, where one call per event-loop turn
 * from JavaScript moves one fragment per turn.
 */
Napi::Value TestRequests(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  double spinSeconds = info.Length() > 0 && info[0].IsNumber() ? info[0].As<Napi::Number>().DoubleValue() * 1e-6 : 0.0;
  double start = MPI_Wtime();
  Napi::Array done = Napi::Array::New(env);
  uint32_t numDone = 0;
  do {
    for (auto it = requests.begin(); it != requests.end();) {
      int flag = 0;
      MPI_Status status;
      int code = MPI_Test(&it->second.request, &flag, &status);
      if (code != MPI_SUCCESS) throw Napi::Error::New(env, "MPI_Test: " + mpiErrorText(code));
      if (flag) {
        done.Set(numDone++, Napi::Number::New(env, it->first));
        it = requests.erase(it);
      } else {
        ++it;
      }
    }
  } while (numDone == 0 && !requests.empty() && MPI_Wtime() - start < spinSeconds);
  return done;
}

/** abort(errorCode): MPI_Abort on MPI_COMM_WORLD; does not return. */
Napi::Value Abort(const Napi::CallbackInfo& info) {
  MPI_Abort(MPI_COMM_WORLD, intArg(info, 0));
  return info.Env().Undefined();
}

Napi::Object Register(Napi::Env env, Napi::Object exports) {
  exports.Set("init", Napi::Function::New(env, Init));
  exports.Set("finalize", Napi::Function::New(env, Finalize));
  exports.Set("commRank", Napi::Function::New(env, CommRank));
  exports.Set("commSize", Napi::Function::New(env, CommSize));
  exports.Set("commSplit", Napi::Function::New(env, CommSplit));
  exports.Set("commSplitShared", Napi::Function::New(env, CommSplitShared));
  exports.Set("commFree", Napi::Function::New(env, CommFree));
  exports.Set("tagUpperBound", Napi::Function::New(env, TagUpperBound));
  exports.Set("isend", Napi::Function::New(env, Isend));
  exports.Set("improbe", Napi::Function::New(env, Improbe));
  exports.Set("imrecv", Napi::Function::New(env, Imrecv));
  exports.Set("iallreduceSum", Napi::Function::New(env, IallreduceSum));
  exports.Set("ibcast", Napi::Function::New(env, Ibcast));
  exports.Set("ibarrier", Napi::Function::New(env, Ibarrier));
  exports.Set("testRequests", Napi::Function::New(env, TestRequests));
  exports.Set("abort", Napi::Function::New(env, Abort));
  return exports;
}

}  // namespace

NODE_API_MODULE(snptally_mpi, Register)
