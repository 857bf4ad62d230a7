#include "dla/fair_queue.h"

#include <algorithm>

namespace dla {

ProducerId RoundRobin::next ()
{
  const ProducerId p = order_.front ();
  order_.pop_front ();
  return p;
}

void RoundRobin::remove (ProducerId p)
{
  order_.erase (std::remove (order_.begin (), order_.end (), p), order_.end ());
}

}  // namespace dla
