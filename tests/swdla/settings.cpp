/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "settings.h"

#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <set>
#include <sstream>

#include "cudla_abi.h"

namespace swdla {
namespace {

struct StatusName {
  int32_t value;
  const char *name;
};
constexpr StatusName kStatusNames[] = {
    {cudlaSuccess, "cudlaSuccess"},
    {cudlaErrorInvalidParam, "cudlaErrorInvalidParam"},
    {cudlaErrorOutOfResources, "cudlaErrorOutOfResources"},
    {cudlaErrorCreationFailed, "cudlaErrorCreationFailed"},
    {cudlaErrorInvalidAddress, "cudlaErrorInvalidAddress"},
    {cudlaErrorOs, "cudlaErrorOs"},
    {cudlaErrorCuda, "cudlaErrorCuda"},
    {cudlaErrorUmd, "cudlaErrorUmd"},
    {cudlaErrorInvalidDevice, "cudlaErrorInvalidDevice"},
    {cudlaErrorInvalidAttribute, "cudlaErrorInvalidAttribute"},
    {cudlaErrorIncompatibleDlaSWVersion, "cudlaErrorIncompatibleDlaSWVersion"},
    {cudlaErrorMemoryRegistered, "cudlaErrorMemoryRegistered"},
    {cudlaErrorInvalidModule, "cudlaErrorInvalidModule"},
    {cudlaErrorUnsupportedOperation, "cudlaErrorUnsupportedOperation"},
    {cudlaErrorNvSci, "cudlaErrorNvSci"},
    {cudlaErrorDriverNotFound, "cudlaErrorDriverNotFound"},
    {cudlaErrorDlaErrInvalidInput, "cudlaErrorDlaErrInvalidInput"},
    {cudlaErrorDlaErrInvalidPreAction, "cudlaErrorDlaErrInvalidPreAction"},
    {cudlaErrorDlaErrNoMem, "cudlaErrorDlaErrNoMem"},
    {cudlaErrorDlaErrProcessorBusy, "cudlaErrorDlaErrProcessorBusy"},
    {cudlaErrorDlaErrTaskStatusMismatch, "cudlaErrorDlaErrTaskStatusMismatch"},
    {cudlaErrorDlaErrEngineTimeout, "cudlaErrorDlaErrEngineTimeout"},
    {cudlaErrorDlaErrDataMismatch, "cudlaErrorDlaErrDataMismatch"},
    {cudlaErrorUnknown, "cudlaErrorUnknown"},
};

bool parse_u64 (const std::string &s, uint64_t *v)
{
  if (s.empty () || s[0] == '-')
    return false;
  char *end = nullptr;
  *v = std::strtoull (s.c_str (), &end, 0);
  return *end == '\0';
}

std::vector<std::string> split (const std::string &s, char sep)
{
  std::vector<std::string> parts;
  std::stringstream ss (s);
  std::string item;
  while (std::getline (ss, item, sep))
    parts.push_back (item);
  return parts;
}

constexpr char kPrefix[] = "SWDLA_";

int64_t env_int (const char *var, int64_t def, int64_t lo, int64_t hi)
{
  const char *v = std::getenv (var);
  if (!v || !*v)
    return def;
  char *end = nullptr;
  const long long x = std::strtoll (v, &end, 0);
  if (*end || x < lo || x > hi) {
    warn_bad_env (var, v, "expected an integer in " + std::to_string (lo) + ".." + std::to_string (hi));
    return def;
  }
  return x;
}

}  // namespace

bool parse_status (const std::string &text, int32_t *status)
{
  for (const StatusName &s : kStatusNames)
    if (text == s.name) {
      *status = s.value;
      return true;
    }
  uint64_t v = 0;
  if (!parse_u64 (text, &v) || v > 0x7fffffffu)
    return false;
  *status = int32_t (v);
  return true;
}

std::string status_text (int32_t status)
{
  for (const StatusName &s : kStatusNames)
    if (status == s.value) {
      char num[32];
      std::snprintf (num, sizeof num, status >= 0x40000000 ? "0x%x" : "%d", unsigned (status));
      return std::string (s.name) + " (" + num + ")";
    }
  return "unknown status " + std::to_string (status);
}

bool parse_call_faults (const std::string &text, std::vector<CallFault> *out, std::string *why)
{
  out->clear ();
  for (const std::string &rule : split (text, ',')) {
    const auto f = split (rule, ':');
    CallFault c;
    if (f.size () != 3 || f[0].rfind ("cudla", 0) != 0 || !parse_u64 (f[1], &c.nth) || c.nth == 0 ||
        !parse_status (f[2], &c.status)) {
      if (why)
        *why = "'" + rule + "': expected <entry point>:<nth, from 1>:<status number or name>";
      return false;
    }
    c.entry = f[0];
    out->push_back (c);
  }
  return true;
}

bool parse_task_fault (const std::string &text, bool value_required, TaskFault *out, std::string *why)
{
  const auto f = split (text, ':');
  bool ok =
      (f.size () == 2 || (f.size () == 1 && !value_required)) && parse_u64 (f[0], &out->nth) && out->nth > 0;
  out->value = 0;
  int32_t v = 0; /* a status (number or name), or milliseconds */
  if (ok && f.size () == 2) {
    ok = parse_status (f[1], &v);
    out->value = v;
  }
  if (!ok && why)
    *why = "'" + text + "': expected <nth task, from 1>" + (value_required ? ":<value>" : "[:<status>]");
  return ok;
}

uint64_t Faults::Counter::next (const char *current)
{
  const std::string now = current ? current : "";
  if (now != value) {
    value = now;
    count = 0;
  }
  return ++count;
}

int32_t Faults::on_call (const char *entry)
{
  std::lock_guard<std::mutex> lock (mutex_);
  const char *env = std::getenv ("SWDLA_FAIL_CALL");
  const std::string value = env ? env : "";
  if (value != fail_call_.value) {
    fail_call_.value = value;
    call_counts_.clear ();
  }
  if (value.empty ())
    return 0;
  std::vector<CallFault> rules;
  std::string why;
  if (!parse_call_faults (value, &rules, &why)) {
    warn_bad_env ("SWDLA_FAIL_CALL", value, why);
    return 0;
  }
  uint64_t *count = nullptr;
  for (auto &c : call_counts_)
    if (c.first == entry)
      count = &c.second;
  if (!count) {
    call_counts_.emplace_back (entry, 0);
    count = &call_counts_.back ().second;
  }
  ++*count;
  for (const CallFault &r : rules)
    if (r.entry == entry && r.nth == *count)
      return r.status;
  return 0;
}

TaskPlan Faults::on_task ()
{
  std::lock_guard<std::mutex> lock (mutex_);
  TaskPlan plan;
  struct Var {
    const char *name;
    Counter *counter;
    bool value_required;
  };
  const Var vars[] = {{"SWDLA_TASK_ERROR", &task_error_, true},
                      {"SWDLA_EXTERNAL_DEVICE_ERROR", &external_error_, false},
                      {"SWDLA_HANG_MS", &hang_, true}};
  for (const Var &v : vars) {
    const char *env = std::getenv (v.name);
    const uint64_t n = v.counter->next (env);
    if (!env || !*env)
      continue;
    TaskFault f;
    std::string why;
    if (!parse_task_fault (env, v.value_required, &f, &why)) {
      warn_bad_env (v.name, env, why);
      continue;
    }
    if (f.nth != n)
      continue;
    if (v.counter == &task_error_)
      plan.task_error = int32_t (f.value);
    else if (v.counter == &external_error_)
      plan.external_error = f.value ? int32_t (f.value) : int32_t (cudlaErrorDlaErrInvalidInput);
    else
      plan.hang_ms = f.value;
  }
  return plan;
}

int num_cores ()
{
  return int (env_int ("SWDLA_NUM_CORES", 2, 1, 16));
}
int64_t service_us ()
{
  return env_int ("SWDLA_SERVICE_US", 0, 0, 10000000);
}
int64_t service_per_item_us ()
{
  return env_int ("SWDLA_SERVICE_PER_ITEM_US", 0, 0, 10000000);
}
bool log_enabled ()
{
  return env_int ("SWDLA_LOG", 0, 0, 1) != 0;
}

uint64_t jittered_ns (uint64_t base_ns, int pct, uint64_t seed, uint64_t k)
{
  if (base_ns == 0 || pct <= 0)
    return base_ns;
  /* splitmix64: output k of the sequence whose state starts at `seed` */
  uint64_t z = seed + k * 0x9e3779b97f4a7c15ull;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  z ^= z >> 31;
  const double u = double (z >> 11) / double (1ull << 53); /* [0, 1) */
  const double scale = 1.0 + double (pct > 100 ? 100 : pct) / 100.0 * (2.0 * u - 1.0);
  return uint64_t (std::llround (double (base_ns) * scale));
}

int service_jitter_pct ()
{
  return int (env_int ("SWDLA_SERVICE_JITTER_PCT", 0, 0, 100));
}

uint64_t seed ()
{
  const char *v = std::getenv ("SWDLA_SEED");
  uint64_t s = 1;
  if (v && *v && !parse_u64 (v, &s)) {
    warn_bad_env ("SWDLA_SEED", v, "expected an unsigned integer");
    s = 1;
  }
  return s;
}

uint64_t ServiceTime::next_ns (const SubmitSettings &s, int64_t batch)
{
  const int64_t us = s.service_us + std::max<int64_t> (batch, 1) * s.service_per_item_us;
  if (!started_ || s.seed != seed_ || s.jitter_pct != pct_) {
    started_ = true;
    seed_ = s.seed;
    pct_ = s.jitter_pct;
    count_ = 0;
  }
  return jittered_ns (uint64_t (us) * 1000u, s.jitter_pct, s.seed, ++count_);
}

bool parse_queue_full (const std::string &text, QueueFull *out)
{
  if (text == "block")
    *out = QueueFull::kBlock;
  else if (text == "fail")
    *out = QueueFull::kFail;
  else
    return false;
  return true;
}

QueueLimit queue_limit ()
{
  QueueLimit q;
  q.limit = uint64_t (env_int ("SWDLA_QUEUE_LIMIT", 0, 0, 1000000));
  const char *v = std::getenv ("SWDLA_QUEUE_FULL");
  if (v && *v && !parse_queue_full (v, &q.full)) {
    warn_bad_env ("SWDLA_QUEUE_FULL", v, "expected block or fail");
    q.full = QueueFull::kBlock;
  }
  return q;
}

Admission admit (const QueueLimit &q, uint64_t in_flight, uint64_t incoming, std::string *why)
{
  if (q.limit == 0 || in_flight + incoming <= q.limit)
    return Admission::kAdmit;
  const std::string limit = " (SWDLA_QUEUE_LIMIT=" + std::to_string (q.limit) + ")";
  if (incoming > q.limit) {
    if (why)
      *why = std::to_string (incoming) + " tasks in one submit exceed the queue limit" + limit;
    return Admission::kRefuse;
  }
  if (q.full == QueueFull::kBlock)
    return Admission::kWait;
  if (why)
    *why = "queue limit reached: " + std::to_string (in_flight) + " tasks of this handle not yet complete" +
           limit;
  return Admission::kRefuse;
}

int64_t submit_cpu_us ()
{
  return env_int ("SWDLA_SUBMIT_CPU_US", 0, 0, 1000000);
}

bool layout_check_enabled ()
{
  const char *v = std::getenv ("SWDLA_CHECK_LAYOUT");
  return v && std::strcmp (v, "1") == 0;
}

SubmitSettings SubmitSettings::Read ()
{
  SubmitSettings s;
  s.queue = queue_limit ();
  s.submit_cpu_us = swdla::submit_cpu_us ();
  s.service_us = swdla::service_us ();
  s.service_per_item_us = swdla::service_per_item_us ();
  s.jitter_pct = service_jitter_pct ();
  s.seed = swdla::seed ();
  s.check_layout = layout_check_enabled ();
  s.graphs = env_int ("SWDLA_GRAPHS", 1, 0, 1) != 0;
  return s;
}

bool SettingsCache::unchanged () const
{
  size_t n = 0;
  for (char **e = environ; e && *e; ++e) {
    if ((*e)[0] != 'S' || std::strncmp (*e, kPrefix, sizeof kPrefix - 1) != 0)
      continue;
    if (n >= entries_.size () || entries_[n] != *e)
      return false;
    ++n;
  }
  return n == entries_.size ();
}

const SubmitSettings &SettingsCache::get ()
{
  if (read_ && unchanged ())
    return settings_;
  entries_.clear ();
  for (char **e = environ; e && *e; ++e)
    if (std::strncmp (*e, kPrefix, sizeof kPrefix - 1) == 0)
      entries_.emplace_back (*e);
  settings_ = SubmitSettings::Read ();
  read_ = true;
  return settings_;
}

uint64_t thread_cpu_ns ()
{
  timespec ts{};
  clock_gettime (CLOCK_THREAD_CPUTIME_ID, &ts);
  return uint64_t (ts.tv_sec) * 1000000000u + uint64_t (ts.tv_nsec);
}

void burn_thread_cpu (uint64_t ns)
{
  if (ns == 0)
    return;
  const uint64_t start = thread_cpu_ns ();
  while (thread_cpu_ns () - start < ns) {
  }
}

void warn_bad_env (const char *var, const std::string &value, const std::string &why)
{
  static std::mutex mutex;
  static std::set<std::string> seen;
  std::lock_guard<std::mutex> lock (mutex);
  if (seen.insert (std::string (var) + "=" + value).second)
    std::fprintf (stderr, "swdla: ignoring %s=%s: %s\n", var, value.c_str (), why.c_str ());
}

}  // namespace swdla
