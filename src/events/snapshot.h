/* PostgreSQL snapshot arithmetic for the race-free register: pure, no Redis or database. */
#ifndef CONFAB_SNAPSHOT_H
#define CONFAB_SNAPSHOT_H

#include <stdbool.h>
#include <stdint.h>

/*
 * Whether transaction txid had committed (or ended) when snapshot was taken, so that what it wrote is already in
 * the state POST /register returned. snapshot is the text of pg_current_snapshot(): "xmin:xmax:xip,xip,..."
 * (decimal, the xip list possibly empty). Visible: txid < xmin, or xmin <= txid < xmax and not in the xip list.
 *
 * Returns false (not visible: the event is served) for txid 0 (an event written outside a transaction), a NULL
 * or empty snapshot (a queue without one), and for any malformed text: a field missing or empty, anything but
 * digits (no sign, no spaces), a number past 2^64 - 1, a trailing comma or character, or xmin > xmax. A
 * duplicate of something the state already holds is harmless to a client; a skipped event is a silent gap.
 */
bool snapshot_txid_visible(const char *snapshot, uint64_t txid);

#endif
