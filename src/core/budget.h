/*
 * A budget of CPU time for one piece of work done on one thread (rendering a message): what the reference's
 * timeout around its Markdown engine gives, measured in the thread's own CPU time, so that time spent waiting
 * (for a core, a lock, the database) counts against no one and a loaded machine refuses nothing it would render
 * when idle.
 */
#ifndef CONFAB_BUDGET_H
#define CONFAB_BUDGET_H

#include <stdbool.h>
#include <stdint.h>

struct budget {
	int64_t end_ns; /* the thread's CPU clock when the budget runs out */
	unsigned ticks;
	bool exceeded;
};

/* Starts a budget of ms milliseconds of the calling thread's CPU time. */
void budget_start(struct budget *b, int64_t ms);

/* Whether the budget has run out (and stays so once it has): reads the clock on every call (a system call). */
bool budget_check(struct budget *b);

/* The same for hot loops: reads the clock only on every 32nd call, so most calls cost a few nanoseconds. */
bool budget_tick(struct budget *b);

#endif
