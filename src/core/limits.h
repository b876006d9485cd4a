/* Bounds of hostile input shared by the validator (http/params.h) and the model (see docs/LIMITS.md). */
#ifndef CONFAB_LIMITS_H
#define CONFAB_LIMITS_H

/* Most items in one list parameter, or in a list inside one (a group setting's members). */
#define PARAM_MAX_ITEMS 1000

#endif
