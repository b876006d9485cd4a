/* CPU-time budgets: the calling thread's CPU clock against a deadline. */
#include "core/budget.h"

#include <time.h>

#define TICK_STRIDE 32 /* calls of budget_tick() per reading of the clock */

static int64_t thread_cpu_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

void budget_start(struct budget *b, int64_t ms)
{
	b->end_ns = thread_cpu_ns() + ms * 1000000;
	b->ticks = 0;
	b->exceeded = false;
}

bool budget_check(struct budget *b)
{
	if (!b->exceeded && thread_cpu_ns() >= b->end_ns)
		b->exceeded = true;
	return b->exceeded;
}

bool budget_tick(struct budget *b)
{
	if (b->exceeded)
		return true;
	return ++b->ticks % TICK_STRIDE == 0 && budget_check(b);
}
