/* Bounds of hostile input shared by the validator (http/params.h) and the model (see docs/LIMITS.md). */
#ifndef CONFAB_LIMITS_H
#define CONFAB_LIMITS_H

/* Most items in one list parameter, or in a list inside one (a group setting's members). */
#define PARAM_MAX_ITEMS 1000

/*
 * A request's form (docs/LIMITS.md, "Requests"): fields of its query string, and of its body; files of a multipart
 * body (the reference's Django: DATA_UPLOAD_MAX_NUMBER_FIELDS, DATA_UPLOAD_MAX_NUMBER_FILES), and the bytes of a
 * body that is no file upload, or of the fields of one (confab's: the reference allows 25 MiB).
 */
#define FORM_MAX_FIELDS 1000
#define FORM_MAX_FILES  100
#define FORM_MAX_BYTES  (4 * 1024 * 1024)

#endif
