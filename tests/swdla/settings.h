/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* swdla: settings and fault injection from the environment (README.md lists the variables).
 *
 * Values follow the environment at each use, so a test can change them between calls; an "nth"
 * counter starts again whenever its variable's value changes. What every submit reads comes
 * through SettingsCache, read again only when an SWDLA_ variable changed. Host-only, no CUDA. */
#pragma once

#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

namespace swdla {

/* "7", "0x40000006" or a status name ("cudlaErrorUmd"); false for anything else. */
bool parse_status (const std::string &text, int32_t *status);

/* "cudlaErrorInvalidDevice (8)", "cudlaErrorDlaErrEngineTimeout (0x40000006)", "unknown status 42". */
std::string status_text (int32_t status);

/* SWDLA_FAIL_CALL = <entry point>:<nth>:<status>[,<entry point>:<nth>:<status>...] */
struct CallFault {
  std::string entry;
  uint64_t nth = 0;
  int32_t status = 0;
};
bool parse_call_faults (const std::string &text, std::vector<CallFault> *out, std::string *why);

/* SWDLA_TASK_ERROR = <nth>:<status>, SWDLA_EXTERNAL_DEVICE_ERROR = <nth>[:<status>],
 * SWDLA_HANG_MS = <nth>:<ms>. `value` is the status or the milliseconds. */
struct TaskFault {
  uint64_t nth = 0;
  int64_t value = 0;
};
bool parse_task_fault (const std::string &text, bool value_required, TaskFault *out, std::string *why);

/* What the environment asks of one task. */
struct TaskPlan {
  int32_t task_error = 0;     /* non-zero: the task fails with this DLA status */
  int32_t external_error = 0; /* non-zero: the task fails with this status and 911 follows */
  int64_t hang_ms = 0;        /* > 0: the task hangs this long (up to the timeout) */
};

/* The nth-call and nth-task counters behind the variables (one per process). */
class Faults {
 public:
  /* The status the current call of `entry` must return, or 0. Counts the call. */
  int32_t on_call (const char *entry);
  /* Counts one task and says what happens to it. */
  TaskPlan on_task ();

 private:
  struct Counter {
    std::string value; /* the variable's value when counting started */
    uint64_t count = 0;
    /* Counts, restarting when the value changed; returns the new count. */
    uint64_t next (const char *current);
  };
  std::mutex mutex_;
  Counter fail_call_;
  std::vector<std::pair<std::string, uint64_t>> call_counts_;
  Counter task_error_, external_error_, hang_;
};

/* SWDLA_NUM_CORES (1..16, default 2), SWDLA_SERVICE_US (default 0), SWDLA_LOG (default 0). */
int num_cores ();
int64_t service_us ();
/* SWDLA_SERVICE_PER_ITEM_US (0..10,000,000, default 0): added to a task's service time per image of
 * the loadable's batch (a batch of N costs N items, however many of them the task filled), so that
 * batching is not free. */
int64_t service_per_item_us ();
bool log_enabled ();

/* Service-time jitter: draw `k` (from 1) of the sequence seeded by `seed` (splitmix64, the kth
 * output), as `base_ns` scaled uniformly within +-`pct` % (pct 0..100). Pure: the same arguments
 * always give the same time. */
uint64_t jittered_ns (uint64_t base_ns, int pct, uint64_t seed, uint64_t k);

/* SWDLA_SERVICE_JITTER_PCT (0..100, default 0), SWDLA_SEED (default 1). */
int service_jitter_pct ();
uint64_t seed ();

/* SWDLA_QUEUE_LIMIT (0 = none, the default; else 1..1,000,000 tasks of one handle not yet
 * complete) and SWDLA_QUEUE_FULL (block, the default, or fail): what a submit meets when it is
 * reached. */
enum class QueueFull { kBlock, kFail };
struct QueueLimit {
  uint64_t limit = 0;
  QueueFull full = QueueFull::kBlock;
};
bool parse_queue_full (const std::string &text, QueueFull *out);
QueueLimit queue_limit ();

/* Whether a submit of `incoming` tasks may join the handle's `in_flight` ones: admitted, to wait
 * for the oldest to complete (block), or refused (fail, or more tasks at once than the limit) with
 * `why`. */
enum class Admission { kAdmit, kWait, kRefuse };
Admission admit (const QueueLimit &q, uint64_t in_flight, uint64_t incoming, std::string *why);

/* SWDLA_SUBMIT_CPU_US (0..1,000,000, default 0): CPU each accepted cudlaSubmitTask burns. */
int64_t submit_cpu_us ();

/* SWDLA_CHECK_LAYOUT=1: every submit checks its inputs' padding (submit.cpp). */
bool layout_check_enabled ();

/* What every submit reads from the environment, read together by the functions above. */
struct SubmitSettings {
  QueueLimit queue;
  int64_t submit_cpu_us = 0;
  int64_t service_us = 0, service_per_item_us = 0;
  int jitter_pct = 0;
  uint64_t seed = 1;
  bool check_layout = false;
  bool graphs = true; /* SWDLA_GRAPHS=0: each task's kernels launch one by one (no graph cache) */
  static SubmitSettings Read ();
};

/* SubmitSettings::Read () as of now, without its eight getenv calls when nothing changed: one pass
 * over the environment compares its SWDLA_ entries with those the settings were read from, and
 * reads again when any was set, changed or unset (so a test may still change a variable between
 * two submits). The caller serialises (swdla's lock). */
class SettingsCache {
 public:
  const SubmitSettings &get ();

 private:
  bool unchanged () const;
  bool read_ = false;
  std::vector<std::string> entries_; /* the environment's SWDLA_ entries ("NAME=value"), in order */
  SubmitSettings settings_;
};

/* Each task's service time: service_us + batch x service_per_item_us, jittered by jitter_pct. Task
 * k since the seed and jitter_pct took their current values gets draw k (one sequence per process,
 * in submission order), so a run with the same settings and submissions repeats. The caller
 * serialises (swdla's lock). */
class ServiceTime {
 public:
  /* Counts one task of a loadable with this batch and returns its service time in nanoseconds (0:
   * none). */
  uint64_t next_ns (const SubmitSettings &s, int64_t batch = 1);

 private:
  bool started_ = false;
  uint64_t seed_ = 0; /* the values when counting started */
  int pct_ = 0;
  uint64_t count_ = 0;
};

/* CPU time of the calling thread (ns), and a busy wait until it has grown by `ns`. */
uint64_t thread_cpu_ns ();
void burn_thread_cpu (uint64_t ns);

/* Reports a malformed variable once per distinct value, on stderr. */
void warn_bad_env (const char *var, const std::string &value, const std::string &why);

}  // namespace swdla
