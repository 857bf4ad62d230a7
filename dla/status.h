/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gst-dlainfer: the dla layer returns the status of the C++ layers (host/status.h). */
#pragma once

#include "host/status.h"

namespace dla {

using Code = host::Code;
using Status = host::Status;

}  // namespace dla
