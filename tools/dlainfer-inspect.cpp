/* dlainfer-inspect: what a model file is, its tensors as dlainfer reads them, and timed runs.
 *
 *   dlainfer-inspect [--identify] FILE
 *   dlainfer-inspect --run N [--core C | --cores C,C..] [--handles H] [--queue Q] [--warmup W]
 *                    [--random SEED | --input F32] [--input-scale S] [--output-scale S]
 *                    [--output F32] [--expect F32 [--ulps K | --steps K]] FILE
 *
 * The cuDLA library is found as the element finds it (DLAINFER_CUDLA_LIBRARY, else libcudla.so.1)
 * through the dla layer (loader, device, module, descriptor_map, registered_tensor): what it
 * prints is what dlainfer sees. A model need not be an image classifier to --run (a backbone's
 * 1x64x56x56 -> 1x2048x7x7 runs). Output lines are `key: k=v ...` for scripts (the Orin kit).
 *
 * Exit codes: 0 done; 2 usage; 3 file missing, unreadable or empty; 4 not a model cuDLA can load
 * (TensorRT engine, truncated or damaged swdla model, unknown bytes); 5 no cuDLA library or no
 * CUDA device / DLA core (the file's kind was printed, its tensors were not); 6 the library
 * refused the model or a descriptor maps to no layout dlainfer supports; 7 a task failed or
 * --expect found a mismatch. */
#include <cuda_runtime_api.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "cuda_resources.h"
#include "descriptor_map.h"
#include "device.h"
#include "loader.h"
#include "model_file.h"
#include "module.h"
#include "numeric.h"
#include "registered_tensor.h"
#include "status_names.h"

namespace {

enum Exit { kOk = 0, kUsage = 2, kNoFile = 3, kNotModel = 4, kNoDla = 5, kRefused = 6, kRunFailed = 7 };

const char *const kUsageText =
    "usage: dlainfer-inspect [--identify] FILE\n"
    "       dlainfer-inspect --run N [--core C | --cores C,C..] [--handles H] [--queue Q] [--warmup W]\n"
    "                        [--random SEED | --input F32] [--input-scale S] [--output-scale S]\n"
    "                        [--output F32] [--expect F32 [--ulps K | --steps K]] FILE\n"
    "Says what FILE is (cuDLA loadable, TensorRT engine, swdla model, other) and prints its tensors as\n"
    "dlainfer reads them; --run runs it N times per handle on zero (or --random/--input) input and prints\n"
    "per-task times, CPU per submit and an output checksum. F32 files are dense float32 NCHW.\n"
    "  --identify     the file only: no cuDLA library, no GPU\n"
    "  --cores 0,1    one handle per core, run concurrently (one loadable on both cores)\n"
    "  --handles H    H handles on each core, run concurrently\n"
    "  --queue Q      tasks submitted before each wait (probes how many a handle queues)\n"
    "  --expect F32   compare the last output: FP16 within K ulps (--ulps, default 2) of the largest\n"
    "                 |expected| (at least 1.0), INT8 within K steps (--steps, default 1), same argmax\n"
    "Exit: 0 ok, 2 usage, 3 no such/empty file, 4 not a loadable model, 5 no cuDLA library or device,\n"
    "6 model refused, 7 task failed or --expect mismatch.\n"
    "Environment: DLAINFER_CUDLA_LIBRARY names the cuDLA library (swdla on x86).\n";

struct Options {
  std::string file;
  bool identify = false;
  long runs = 0;
  std::vector<int> cores{0};
  int handles = 1, queue = 1, warmup = 2;
  long seed = -1;
  std::string input, output, expect;
  float input_scale = 1.f, output_scale = 1.f;
  int ulps = 2, steps = 1;
};

bool parse_int (const char *s, long lo, long hi, long *out)
{
  char *end = nullptr;
  errno = 0;
  const long v = std::strtol (s, &end, 10);
  if (errno || !end || *end || end == s || v < lo || v > hi)
    return false;
  *out = v;
  return true;
}

bool parse (int argc, char **argv, Options *o, std::string *why)
{
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&] () -> const char * { return i + 1 < argc ? argv[++i] : nullptr; };
    long v = 0;
    const char *s = nullptr;
    if (a == "--identify") {
      o->identify = true;
    } else if (a == "--run" || a == "--core" || a == "--handles" || a == "--queue" || a == "--warmup" ||
               a == "--random" || a == "--ulps" || a == "--steps") {
      const long hi = a == "--run"       ? 100000000
                      : a == "--core"    ? 15
                      : a == "--handles" ? 16
                      : a == "--queue"   ? 4096
                      : a == "--random"  ? 0x7fffffff
                                         : 100000;
      if (!(s = value ()) ||
          !parse_int (s, a == "--run" || a == "--handles" || a == "--queue" ? 1 : 0, hi, &v)) {
        *why = a + " takes a whole number in range";
        return false;
      }
      if (a == "--run")
        o->runs = v;
      if (a == "--core")
        o->cores = {int (v)};
      if (a == "--handles")
        o->handles = int (v);
      if (a == "--queue")
        o->queue = int (v);
      if (a == "--warmup")
        o->warmup = int (v);
      if (a == "--random")
        o->seed = v;
      if (a == "--ulps")
        o->ulps = int (v);
      if (a == "--steps")
        o->steps = int (v);
    } else if (a == "--cores") {
      if (!(s = value ())) {
        *why = "--cores takes a list such as 0,1";
        return false;
      }
      o->cores.clear ();
      std::stringstream ss (s);
      std::string item;
      while (std::getline (ss, item, ',')) {
        if (!parse_int (item.c_str (), 0, 15, &v)) {
          *why = "--cores takes a list such as 0,1";
          return false;
        }
        o->cores.push_back (int (v));
      }
      if (o->cores.empty ()) {
        *why = "--cores takes a list such as 0,1";
        return false;
      }
    } else if (a == "--input" || a == "--output" || a == "--expect") {
      if (!(s = value ())) {
        *why = a + " takes a file name";
        return false;
      }
      (a == "--input" ? o->input : a == "--output" ? o->output : o->expect) = s;
    } else if (a == "--input-scale" || a == "--output-scale") {
      char *end = nullptr;
      if (!(s = value ()) || !(std::strtof (s, &end) > 0.f) || *end) {
        *why = a + " takes a positive number";
        return false;
      }
      (a == "--input-scale" ? o->input_scale : o->output_scale) = std::strtof (s, nullptr);
    } else if (a == "-h" || a == "--help") {
      std::fputs (kUsageText, stdout);
      std::exit (kOk);
    } else if (!a.empty () && a[0] == '-') {
      *why = "unknown option " + a;
      return false;
    } else if (o->file.empty ()) {
      o->file = a;
    } else {
      *why = "one file at a time";
      return false;
    }
  }
  if (o->file.empty ()) {
    *why = "no file given";
    return false;
  }
  if (!o->input.empty () && o->seed >= 0) {
    *why = "--input and --random exclude each other";
    return false;
  }
  if ((o->runs == 0) && (!o->input.empty () || !o->output.empty () || !o->expect.empty ())) {
    *why = "--input, --output and --expect need --run N";
    return false;
  }
  return true;
}

uint32_t le32 (const std::vector<uint8_t> &b, size_t off)
{
  return uint32_t (b[off]) | uint32_t (b[off + 1]) << 8 | uint32_t (b[off + 2]) << 16 |
         uint32_t (b[off + 3]) << 24;
}

/* What the file is, from its bytes alone. Returns the exit code for a file that cannot load. */
int identify (const std::string &path, const std::vector<uint8_t> &b)
{
  const dla::ModelKind kind = dla::model_kind (b.data (), b.size ());
  std::printf ("file: %s (%zu bytes)\n", path.c_str (), b.size ());
  switch (kind) {
    case dla::ModelKind::kNvidiaLoadable:
      std::printf ("kind: cuDLA standalone loadable ('NVDA' at bytes 4..7)\n");
      return kOk;
    case dla::ModelKind::kTensorRtEngine:
      std::printf ("kind: TensorRT engine ('ftrt' at byte 0)\n");
      std::printf (
          "note: this is a TensorRT engine, not a cuDLA loadable: rebuild with trtexec "
          "--buildDLAStandalone (%s)\n",
          dla::kTrtexecRecipe);
      return kNotModel;
    case dla::ModelKind::kSwdla: {
      /* FORMAT.md: magic, version, header bytes, inputs, outputs, layers, file bytes. */
      if (b.size () < 32) {
        std::printf ("kind: swdla model, truncated: %zu bytes, shorter than its 32-byte header\n", b.size ());
        return kNotModel;
      }
      const uint32_t version = le32 (b, 8), ins = le32 (b, 16), outs = le32 (b, 20), layers = le32 (b, 24),
                     declared = le32 (b, 28);
      std::printf (
          "kind: swdla model (the software DLA of gst-dlainfer's tests, 'SWDLAMDL'): version %u, "
          "%u input(s), %u output(s), %u layer(s)\n",
          version, ins, outs, layers);
      if (declared != b.size ()) {
        std::printf ("note: the header declares %u bytes but the file has %zu: %s\n", declared, b.size (),
                     declared > b.size () ? "truncated" : "trailing bytes");
        return kNotModel;
      }
      if (version != 1) {
        std::printf ("note: version %u is not one swdla reads (1)\n", version);
        return kNotModel;
      }
      return kOk;
    }
    case dla::ModelKind::kUnknown:
      break;
  }
  if (b.size () >= 4 && std::memcmp (b.data (),
                                     "\x7f"
                                     "ELF",
                                     4) == 0)
    std::printf ("kind: an ELF file (a program or library), not a model\n");
  else if (b.size () >= 2 && b[0] == 0x08 && b[1] < 0x20)
    std::printf ("kind: unknown; it may be an ONNX model (protobuf): build a loadable from it with: %s\n",
                 dla::kTrtexecRecipe);
  else
    std::printf ("kind: unknown (no 'NVDA' at bytes 4..7, no 'ftrt' or 'SWDLAMDL' at byte 0)%s\n",
                 b.size () < 8 ? ": too short for any model" : "");
  std::printf ("note: a cuDLA loadable is made on the Jetson with: %s\n", dla::kTrtexecRecipe);
  return kNotModel;
}

bool read_f32 (const std::string &path, std::vector<float> *out)
{
  std::ifstream f (path, std::ios::binary);
  if (!f)
    return false;
  std::vector<char> b ((std::istreambuf_iterator<char> (f)), std::istreambuf_iterator<char> ());
  if (b.size () % 4)
    return false;
  out->resize (b.size () / 4);
  std::memcpy (out->data (), b.data (), b.size ());
  return true;
}

/* Dense float32 NCHW (c_dense channels) -> the tensor's layout and type; the rest stays zero. */
void pack (const tensor::View &v, const float *dense, int64_t c_dense, float scale, std::vector<uint8_t> *out)
{
  out->assign (size_t (v.size), 0);
  size_t i = 0;
  for (int64_t n = 0; n < v.n; ++n)
    for (int64_t c = 0; c < c_dense; ++c)
      for (int64_t y = 0; y < v.h; ++y)
        for (int64_t x = 0; x < v.w; ++x) {
          uint8_t *p = out->data () + v.offset (n, c, y, x);
          if (v.type == tensor::ElemType::kFp16) {
            const uint16_t h = tensor::float_to_half (dense[i++]);
            std::memcpy (p, &h, 2);
          } else {
            *p = uint8_t (tensor::quantize_int8 (dense[i++], scale));
          }
        }
}

std::vector<float> unpack (const tensor::View &v, const uint8_t *bytes, float scale)
{
  std::vector<float> out;
  out.reserve (size_t (v.n * v.c * v.h * v.w));
  for (int64_t n = 0; n < v.n; ++n)
    for (int64_t c = 0; c < v.c; ++c)
      for (int64_t y = 0; y < v.h; ++y)
        for (int64_t x = 0; x < v.w; ++x) {
          const uint8_t *p = bytes + v.offset (n, c, y, x);
          if (v.type == tensor::ElemType::kFp16) {
            uint16_t h;
            std::memcpy (&h, p, 2);
            out.push_back (tensor::half_to_float (h));
          } else {
            out.push_back (tensor::dequantize_int8 (int8_t (*p), scale));
          }
        }
  return out;
}

uint64_t checksum (const std::vector<float> &v) /* FNV-1a over the values' bits */
{
  uint64_t h = 1469598103934665603ull;
  for (float f : v) {
    uint32_t u;
    std::memcpy (&u, &f, 4);
    for (int k = 0; k < 4; ++k) {
      h ^= (u >> (8 * k)) & 0xff;
      h *= 1099511628211ull;
    }
  }
  return h;
}

double cpu_now_us ()
{
  timespec ts;
  clock_gettime (CLOCK_THREAD_CPUTIME_ID, &ts);
  return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

double wall_now_us ()
{
  return std::chrono::duration<double, std::micro> (std::chrono::steady_clock::now ().time_since_epoch ())
      .count ();
}

double percentile (std::vector<double> v, double p)
{
  if (v.empty ())
    return 0;
  std::sort (v.begin (), v.end ());
  return v[std::min (v.size () - 1, size_t (p * (v.size () - 1) + 0.5))];
}

/* One device handle running the model: its own module, tensors and stream. */
struct Worker {
  int core = 0, index = 0;
  dla::Device device;
  dla::Module module;
  std::vector<dla::TensorInfo> inputs, outputs;
  std::vector<dla::RegisteredTensor> in_t, out_t;
  std::vector<const uint64_t *> in_ptrs;
  std::vector<uint64_t *> out_ptrs;
  dla::CudaStream stream;
  dla::CudaEvent start, stop;
  /* results */
  std::vector<double> task_us, dla_us, submit_cpu_us, submit_wall_us;
  double wall_us = 0;
  long submitted = 0;
  std::string error;
  int queue_failed_at = -1;
  std::vector<float> last_output;
};

int open_worker (const std::shared_ptr<const dla::Library> &lib, const std::vector<uint8_t> &bytes,
                 const Options &o, Worker *w, bool print)
{
  dla::Status st = dla::Device::Open (lib, 0, w->core, &w->device);
  if (!st.ok ()) {
    std::fprintf (stderr, "dlainfer-inspect: %s\n", st.message.c_str ());
    return kNoDla;
  }
  st = dla::Module::Load (w->device, bytes.data (), bytes.size (), o.file, &w->module);
  if (!st.ok ()) {
    std::fprintf (stderr, "dlainfer-inspect: %s\n", st.message.c_str ());
    return kRefused;
  }
  int rc = kOk;
  for (int dir = 0; dir < 2; ++dir) {
    const auto &raw = dir == 0 ? w->module.inputs () : w->module.outputs ();
    auto &infos = dir == 0 ? w->inputs : w->outputs;
    for (size_t i = 0; i < raw.size (); ++i) {
      dla::TensorInfo info;
      st = dla::map_descriptor (raw[i], dir == 0 ? dla::Direction::kInput : dla::Direction::kOutput, &info);
      if (print) {
        std::printf ("%s %zu: '%s' %s\n", dir == 0 ? "input" : "output", i,
                     dla::descriptor_name (raw[i]).c_str (),
                     st.ok () ? dla::describe_view (info.view).c_str () : "(no layout dlainfer supports)");
        if (st.ok ())
          std::printf ("  reading: %s\n", info.reading.c_str ());
        else
          std::printf ("  refused: %s\n", st.message.c_str ());
        std::printf ("  raw: %s\n", dla::describe_raw (raw[i]).c_str ());
      }
      if (!st.ok ()) {
        rc = kRefused;
        continue;
      }
      infos.push_back (info);
    }
  }
  return rc;
}

int prepare_worker (Worker *w, const std::vector<std::vector<uint8_t>> &input_bytes)
{
  dla::Status st;
  for (int dir = 0; dir < 2; ++dir) {
    const auto &raw = dir == 0 ? w->module.inputs () : w->module.outputs ();
    auto &ts = dir == 0 ? w->in_t : w->out_t;
    for (const auto &d : raw) {
      dla::RegisteredTensor t;
      st = dla::RegisteredTensor::Create (w->device, d.size, dla::descriptor_name (d), &t);
      if (!st.ok ()) {
        w->error = st.message;
        return kRunFailed;
      }
      ts.push_back (std::move (t));
    }
  }
  dla::ScopedContext scope (w->device.context ().handle ());
  for (size_t i = 0; i < w->in_t.size (); ++i) {
    w->in_ptrs.push_back (w->in_t[i].dla_ptr ());
    if (i < input_bytes.size () && !input_bytes[i].empty ()) {
      const cudaError_t e =
          cudaMemcpy (w->in_t[i].cuda_ptr (), input_bytes[i].data (),
                      std::min<size_t> (input_bytes[i].size (), w->in_t[i].size ()), cudaMemcpyHostToDevice);
      if (e != cudaSuccess) {
        w->error = std::string ("cudaMemcpy of the input failed: ") + cudaGetErrorName (e);
        return kRunFailed;
      }
    }
  }
  for (auto &t : w->out_t)
    w->out_ptrs.push_back (t.dla_ptr ());
  st = dla::CudaStream::Create (&w->stream);
  if (st.ok ())
    st = dla::CudaEvent::Create (true, &w->start);
  if (st.ok ())
    st = dla::CudaEvent::Create (true, &w->stop);
  if (!st.ok ()) {
    w->error = st.message;
    return kRunFailed;
  }
  return kOk;
}

/* Runs warm-up then `runs` tasks in groups of `queue` (submit all, then wait). */
void run_worker (Worker *w, const Options &o, std::atomic<int> *ready, int total)
{
  dla::ScopedContext scope (w->device.context ().handle ());
  const dla::CudlaApi &api = w->device.api ();
  cudaStream_t s = static_cast<cudaStream_t> (w->stream.get ());
  cudlaTask task{};
  task.moduleHandle = w->module.handle ();
  task.inputTensor = w->in_ptrs.data ();
  task.numInputTensors = uint32_t (w->in_ptrs.size ());
  task.outputTensor = w->out_ptrs.data ();
  task.numOutputTensors = uint32_t (w->out_ptrs.size ());
  auto submit = [&] () -> bool {
    const double c0 = cpu_now_us (), t0 = wall_now_us ();
    const cudlaStatus cs = api.SubmitTask (w->device.handle (), &task, 1, s, 0);
    w->submit_cpu_us.push_back (cpu_now_us () - c0);
    w->submit_wall_us.push_back (wall_now_us () - t0);
    if (cs != cudlaSuccess) {
      w->error = dla::cudla_call_failed ("cudlaSubmitTask", cs) + w->device.library ().refusal_detail ();
      return false;
    }
    ++w->submitted;
    return true;
  };
  auto wait = [&] () -> bool {
    const cudaError_t e = cudaStreamSynchronize (s);
    const int ext = w->device.library ().emulated_external_error ();
    if (e != cudaSuccess || ext) {
      w->error = std::string ("cudaStreamSynchronize: ") +
                 (ext ? "cudaErrorExternalDevice (emulated 911)" : cudaGetErrorName (e));
      return false;
    }
    const cudlaStatus last = w->device.last_error ();
    if (last != cudlaSuccess) {
      w->error = "the task failed on the DLA: " + dla::cudla_status_name (last);
      return false;
    }
    return true;
  };
  for (int i = 0; i < o.warmup; ++i)
    if (!submit () || !wait ())
      return;
  w->submit_cpu_us.clear ();
  w->submit_wall_us.clear ();
  w->submitted = 0;
  ready->fetch_add (1);
  while (ready->load () < total) /* all handles start together */
    std::this_thread::yield ();
  const double t_begin = wall_now_us ();
  for (long done = 0; done < o.runs;) {
    const int q = int (std::min<long> (o.queue, o.runs - done));
    const double t0 = wall_now_us ();
    cudaEventRecord (static_cast<cudaEvent_t> (w->start.get ()), s);
    for (int k = 0; k < q; ++k)
      if (!submit ()) {
        if (o.queue > 1)
          w->queue_failed_at = k;
        cudaStreamSynchronize (s);
        w->wall_us = wall_now_us () - t_begin;
        return;
      }
    cudaEventRecord (static_cast<cudaEvent_t> (w->stop.get ()), s);
    if (!wait ())
      return;
    const double host = wall_now_us () - t0;
    float ms = 0;
    cudaEventElapsedTime (&ms, static_cast<cudaEvent_t> (w->start.get ()),
                          static_cast<cudaEvent_t> (w->stop.get ()));
    w->task_us.push_back (host / q);
    w->dla_us.push_back (ms * 1000.0 / q);
    done += q;
  }
  w->wall_us = wall_now_us () - t_begin;
  if (!w->outputs.empty ()) {
    std::vector<uint8_t> host (size_t (w->out_t[0].size ()));
    if (cudaMemcpy (host.data (), w->out_t[0].cuda_ptr (), host.size (), cudaMemcpyDeviceToHost) ==
        cudaSuccess)
      w->last_output = unpack (w->outputs[0].view, host.data (), o.output_scale);
  }
}

int compare (const std::vector<float> &got, const tensor::View &v, const Options &o)
{
  std::vector<float> want;
  if (!read_f32 (o.expect, &want) || want.empty () || want.size () % size_t (v.n * v.h * v.w)) {
    std::printf ("compare: result=FAIL reason=cannot read '%s' as float32 %ldx?x%ldx%ld\n", o.expect.c_str (),
                 long (v.n), long (v.h), long (v.w));
    return kRunFailed;
  }
  /* The expected file holds the real channels; the descriptor may report padded ones. */
  const int64_t ce = int64_t (want.size ()) / (v.n * v.h * v.w);
  if (ce > v.c) {
    std::printf ("compare: result=FAIL reason=expected %ld channels, the output has %ld\n", long (ce),
                 long (v.c));
    return kRunFailed;
  }
  const bool int8 = v.type == tensor::ElemType::kInt8;
  float peak = 1.f;
  for (float x : want)
    peak = std::max (peak, std::fabs (x));
  const float ulp = std::ldexp (1.f, int (std::floor (std::log2 (peak))) - 10);
  const float tol = int8 ? o.steps * o.output_scale * 1.0001f : o.ulps * ulp;
  double max_diff = 0;
  bool argmax_ok = true;
  for (int64_t n = 0; n < v.n; ++n) {
    int64_t ag = 0, aw = 0;
    const int64_t plane = v.h * v.w;
    for (int64_t c = 0; c < ce; ++c)
      for (int64_t p = 0; p < plane; ++p) {
        const float g = got[size_t ((n * v.c + c) * plane + p)], e = want[size_t ((n * ce + c) * plane + p)];
        max_diff = std::max (max_diff, double (std::fabs (g - e)));
        if (plane == 1) {
          if (g > got[size_t ((n * v.c + ag) * plane)])
            ag = c;
          if (e > want[size_t ((n * ce + aw) * plane)])
            aw = c;
        }
      }
    if (plane == 1 && ag != aw && want[size_t (n * ce + aw)] - want[size_t (n * ce + ag)] > tol)
      argmax_ok = false;
  }
  const bool ok = max_diff <= tol && argmax_ok;
  std::printf ("compare: result=%s max_abs_diff=%.6g tolerance=%.6g (%s) argmax_equal=%s\n",
               ok ? "PASS" : "FAIL", max_diff, tol,
               int8 ? (std::to_string (o.steps) + " int8 steps").c_str ()
                    : (std::to_string (o.ulps) + " fp16 ulps").c_str (),
               argmax_ok ? "yes" : "no");
  return ok ? kOk : kRunFailed;
}

int run (const Options &o, const std::shared_ptr<const dla::Library> &lib, const std::vector<uint8_t> &bytes)
{
  std::vector<std::unique_ptr<Worker>> workers;
  for (int core : o.cores)
    for (int h = 0; h < o.handles; ++h) {
      auto w = std::make_unique<Worker> ();
      w->core = core;
      w->index = int (workers.size ());
      const int rc = open_worker (lib, bytes, o, w.get (), false);
      if (rc != kOk) {
        std::printf ("run: handle=%d core=%d opened=no\n", w->index, core);
        return rc;
      }
      workers.push_back (std::move (w));
    }
  /* The input: zeros, seeded random values in [0, 1), or a dense float32 file. */
  const dla::TensorInfo &in0 = workers[0]->inputs[0];
  const int64_t count = in0.view.n * in0.view.c * in0.view.h * in0.view.w;
  std::vector<float> dense;
  int64_t c_dense = in0.view.c;
  if (!o.input.empty ()) {
    if (!read_f32 (o.input, &dense) || dense.empty () ||
        dense.size () % size_t (in0.view.n * in0.view.h * in0.view.w) ||
        int64_t (dense.size ()) / (in0.view.n * in0.view.h * in0.view.w) > in0.view.c) {
      std::fprintf (stderr, "dlainfer-inspect: '%s' is not float32 %ldx(<=%ld)x%ldx%ld\n", o.input.c_str (),
                    long (in0.view.n), long (in0.view.c), long (in0.view.h), long (in0.view.w));
      return kUsage;
    }
    c_dense = int64_t (dense.size ()) / (in0.view.n * in0.view.h * in0.view.w);
  } else {
    dense.assign (size_t (count), 0.f);
    if (o.seed >= 0) {
      std::mt19937 rng (uint32_t (o.seed));
      std::uniform_real_distribution<float> u (0.f, 1.f);
      for (float &x : dense)
        x = u (rng);
    }
  }
  std::vector<std::vector<uint8_t>> input_bytes (1);
  pack (in0.view, dense.data (), c_dense, o.input_scale, &input_bytes[0]);
  for (auto &w : workers) {
    const int rc = prepare_worker (w.get (), input_bytes);
    if (rc != kOk) {
      std::fprintf (stderr, "dlainfer-inspect: %s\n", w->error.c_str ());
      return rc;
    }
  }
  std::atomic<int> ready{0};
  std::vector<std::thread> threads;
  const double t0 = wall_now_us ();
  for (auto &w : workers)
    threads.emplace_back (run_worker, w.get (), std::cref (o), &ready, int (workers.size ()));
  for (auto &t : threads)
    t.join ();
  const double wall = wall_now_us () - t0;
  int rc = kOk;
  long total = 0;
  uint64_t first_sum = 0;
  bool sums_equal = true;
  for (auto &w : workers) {
    const uint64_t sum = w->last_output.empty () ? 0 : checksum (w->last_output);
    if (w->index == 0)
      first_sum = sum;
    sums_equal = sums_equal && sum == first_sum;
    double cpu = 0;
    for (double c : w->submit_cpu_us)
      cpu += c;
    std::printf ("run: handle=%d core=%d tasks=%ld queue=%d task_us_mean=%.1f task_us_p50=%.1f task_us_p99=%.1f "
                 "dla_us_p50=%.1f cpu_submit_us=%.2f submit_us_p50=%.2f submit_us_max=%.2f per_s=%.1f checksum=%016llx%s%s\n",
        w->index, w->core, w->submitted, o.queue,
        w->task_us.empty () ? 0 : [&] { double s = 0; for (double x : w->task_us) s += x; return s / w->task_us.size (); } (),
        percentile (w->task_us, 0.5), percentile (w->task_us, 0.99), percentile (w->dla_us, 0.5),
        w->submit_cpu_us.empty () ? 0 : cpu / w->submit_cpu_us.size (), percentile (w->submit_wall_us, 0.5),
        percentile (w->submit_wall_us, 1.0), w->wall_us > 0 ? w->submitted * 1e6 / w->wall_us : 0,
        (unsigned long long) sum, w->error.empty () ? "" : " error=", w->error.c_str ());
    if (o.queue > 1) {
      /* Where a deep queue makes submit block (a jump in its wall time) or fail. */
      size_t slowest = 0;
      for (size_t i = 0; i < w->submit_wall_us.size (); ++i)
        if (w->submit_wall_us[i] > w->submit_wall_us[slowest])
          slowest = i;
      std::printf (
          "queue: handle=%d depth=%d accepted=%d failed_at=%d slowest_submit_us=%.1f at=%zu "
          "submit_us_p50=%.2f\n",
          w->index, o.queue,
          w->queue_failed_at >= 0 ? w->queue_failed_at : int (std::min<long> (o.queue, o.runs)),
          w->queue_failed_at, w->submit_wall_us.empty () ? 0 : w->submit_wall_us[slowest],
          slowest % size_t (o.queue), percentile (w->submit_wall_us, 0.5));
    }
    if (!w->error.empty ())
      rc = kRunFailed;
    total += w->submitted;
  }
  std::printf ("run: handles=%zu cores=%zu tasks=%ld wall_ms=%.1f per_s=%.1f checksums_equal=%s\n",
               workers.size (), o.cores.size (), total, wall / 1000, total * 1e6 / wall,
               sums_equal ? "yes" : "no");
  if (rc == kOk && !o.output.empty ()) {
    std::ofstream f (o.output, std::ios::binary | std::ios::trunc);
    f.write (reinterpret_cast<const char *> (workers[0]->last_output.data ()),
             workers[0]->last_output.size () * 4);
    if (!f) {
      std::fprintf (stderr, "dlainfer-inspect: cannot write '%s'\n", o.output.c_str ());
      rc = kRunFailed;
    }
  }
  if (rc == kOk && !o.expect.empty ())
    for (auto &w : workers) /* every handle's result: core 1 must agree as core 0 */
      if (compare (w->last_output, w->outputs[0].view, o) != kOk)
        rc = kRunFailed;
  return rc;
}

}  // namespace

int main (int argc, char **argv)
{
  Options o;
  std::string why;
  if (!parse (argc, argv, &o, &why)) {
    std::fprintf (stderr, "dlainfer-inspect: %s\n%s", why.c_str (), kUsageText);
    return kUsage;
  }
  std::vector<uint8_t> bytes;
  dla::Status st = dla::read_model_file (o.file, &bytes);
  if (!st.ok ()) {
    std::printf ("file: %s\n", o.file.c_str ());
    std::fprintf (stderr, "dlainfer-inspect: %s\n", st.message.c_str ());
    return st.code == dla::Code::kModel || st.code == dla::Code::kNotFound || st.code == dla::Code::kSettings
               ? kNoFile
               : kNoFile;
  }
  int rc = identify (o.file, bytes);
  if (rc != kOk || o.identify)
    return rc;

  dla::set_log_handler ([] (dla::LogLevel, const std::string &) {}); /* messages come back as Status */
  std::shared_ptr<const dla::Library> lib;
  st = dla::Library::Load (&lib);
  if (!st.ok ()) {
    std::printf ("tensors: not read: no cuDLA library\n");
    std::fprintf (stderr, "dlainfer-inspect: %s\n", st.message.c_str ());
    return kNoDla;
  }
  std::printf ("library: %s backend=%s cudla=%s task_timeout=%s\n", lib->path ().c_str (),
               lib->backend ().c_str (), lib->version_string ().c_str (),
               lib->has_task_timeout () ? "yes" : "no");
  st = dla::check_model_for_backend (bytes.data (), bytes.size (), lib->backend (), o.file);
  if (!st.ok ()) {
    std::printf ("tensors: not read: the library cannot load this kind of file\n");
    std::fprintf (stderr, "dlainfer-inspect: %s\n", st.message.c_str ());
    return kRefused;
  }
  if (o.runs == 0) {
    Worker w;
    w.core = o.cores[0];
    rc = open_worker (lib, bytes, o, &w, true);
    if (rc == kOk)
      std::printf ("device: core=%d of %llu\n", w.core, (unsigned long long)w.device.core_count ());
    else if (rc == kNoDla)
      std::printf ("tensors: not read: no CUDA device or DLA core (see the message above)\n");
    return rc;
  }
  return run (o, lib, bytes);
}
