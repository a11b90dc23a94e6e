/* bench-util.h: what the C benchmarks share: the raw driver beside GCuda,
 * and their machine-readable report (tools/run-benchmarks reads it)
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#include "gcuda-cuda-abi-private.h"
#include <gcuda.h>

/* Exits with the program's name, @what and the CUresult unless it is success. */
void   bench_raw_check   (CUresult    res,
                          const char *what);
/* Exits with @error's message unless @ok. */
void   bench_gcuda_check (gboolean    ok,
                          GError     *error,
                          const char *what);
/* dlopen()s the driver GCuda would use (GCUDA_DRIVER_LIBRARY or
 * libcuda.so.1); NULL with the reason printed. */
void  *bench_open_driver (void);
/* A driver function: dlsym() of the exported (versioned) name, else through
 * cuGetProcAddress_v2 (for drivers that only offer that); exits with status
 * 77 (nothing measured) if neither. */
void  *bench_resolve     (void       *lib,
                          const char *exported,
                          const char *base);
/* The same, NULL where the driver has neither (for optional paths). */
void  *bench_resolve_optional (void       *lib,
                               const char *exported,
                               const char *base);

/* Removes "--json FILE" or "--json=FILE" from @argv (so that the positional
 * arguments stay where they were); the FILE, or NULL. */
const char *bench_take_json_arg (int   *argc,
                                 char **argv);

/* The report every benchmark writes with --json FILE, in the schema
 * tools/run-benchmarks reads (docs/performance.md describes it):
 *   {"schema": 1, "benchmark", "table", "title", "params": {...},
 *    "env": {...}, "notes": [...], "rows": [...]}
 * A row is {"group", "name", "role", "unit", "better", "samples",
 * "min", "median", "max", "reps", "reference", "limit", "per_sample"},
 * or {"group", "name", "role", "not_run": reason}. */
typedef struct _BenchReport BenchReport;

typedef enum {
  BENCH_ROLE_GCUDA,      /* a GCuda path: compared with its reference */
  BENCH_ROLE_REFERENCE,  /* the raw driver called directly */
  BENCH_ROLE_PEER,       /* another library (CuPy, cuda.core, ...) */
  BENCH_ROLE_INFO,       /* a figure for context, compared with nothing */
} BenchRole;

BenchReport *bench_report_new       (const char  *benchmark,
                                     const char  *table,
                                     const char  *title);
void         bench_report_param_int (BenchReport *report,
                                     const char  *key,
                                     gint64       value);
void         bench_report_env       (BenchReport *report,
                                     const char  *key,
                                     const char  *value);
void         bench_report_note      (BenchReport *report,
                                     const char  *format,
                                     ...) G_GNUC_PRINTF (2, 3);
/* One measured row. @samples (@n of them, in @unit) are copied; @higher_better
 * says which way is faster; @reference names the row of the same @group
 * this one is compared with (NULL: none); @limit names a hardware limit
 * ("pcie", "hbm"; NULL: none); @per_sample says what one sample is (e.g.
 * "100000 launches"; NULL: one operation). */
void         bench_report_row       (BenchReport  *report,
                                     const char   *group,
                                     const char   *name,
                                     BenchRole     role,
                                     const char   *unit,
                                     gboolean      higher_better,
                                     const double *samples,
                                     int           n,
                                     const char   *reference,
                                     const char   *limit,
                                     const char   *per_sample);
/* A row that could not be measured, with the reason. */
void         bench_report_not_run   (BenchReport *report,
                                     const char  *group,
                                     const char  *name,
                                     BenchRole    role,
                                     const char  *reason);
/* Writes the report to @path (nothing if @path is NULL) and frees it;
 * exits with status 1 if it cannot be written. */
void         bench_report_finish    (BenchReport *report,
                                     const char  *path);
