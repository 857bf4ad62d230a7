/* swdla: settings and fault injection from the environment (README.md lists the variables).
 *
 * Values are read at each use, so a test can change them between calls; an "nth" counter starts
 * again whenever its variable's value changes. Host-only, no CUDA. */
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
bool log_enabled ();

/* Reports a malformed variable once per distinct value, on stderr. */
void warn_bad_env (const char *var, const std::string &value, const std::string &why);

}  // namespace swdla
