/* bench-util.c: what the C benchmarks share: the raw driver beside GCuda,
 * and their machine-readable report
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench-util.h"

void
bench_raw_check (CUresult    res,
                 const char *what)
{
  if (res != CUDA_SUCCESS)
    {
      fprintf (stderr, "%s: %s failed: CUresult %d\n", g_get_prgname (), what, (int) res);
      exit (1);
    }
}

void
bench_gcuda_check (gboolean    ok,
                   GError     *error,
                   const char *what)
{
  if (!ok)
    {
      fprintf (stderr, "%s: %s failed: %s\n", g_get_prgname (), what, error ? error->message : "?");
      exit (1);
    }
}

void *
bench_open_driver (void)
{
  const char *path = g_getenv ("GCUDA_DRIVER_LIBRARY");
  void *lib = dlopen (path != NULL && *path != '\0' ? path : "libcuda.so.1", RTLD_NOW);

  if (lib == NULL)
    fprintf (stderr, "%s: %s\n", g_get_prgname (), dlerror ());
  return lib;
}

void *
bench_resolve_optional (void       *lib,
                        const char *exported,
                        const char *base)
{
  CUresult (*get_proc) (const char *, void **, int, cuuint64_t, CUdriverProcAddressQueryResult *);
  void *fn = dlsym (lib, exported);

  if (fn != NULL)
    return fn;
  get_proc = (CUresult (*) (const char *, void **, int, cuuint64_t, CUdriverProcAddressQueryResult *))
    dlsym (lib, "cuGetProcAddress_v2");
  if (get_proc == NULL || get_proc (base, &fn, CUDA_VERSION, CU_GET_PROC_ADDRESS_DEFAULT, NULL) != CUDA_SUCCESS)
    fn = NULL;
  return fn;
}

void *
bench_resolve (void       *lib,
               const char *exported,
               const char *base)
{
  void *fn = bench_resolve_optional (lib, exported, base);

  if (fn == NULL)
    {
      /* not GCuda's failure: nothing can be measured with this driver */
      fprintf (stderr, "%s: the driver has no %s\n", g_get_prgname (), exported);
      exit (77);
    }
  return fn;
}

const char *
bench_take_json_arg (int   *argc,
                     char **argv)
{
  const char *path = NULL;
  int out = 1;

  for (int i = 1; i < *argc; i++)
    {
      if (strcmp (argv[i], "--json") == 0 && i + 1 < *argc)
        path = argv[++i];
      else if (g_str_has_prefix (argv[i], "--json="))
        path = argv[i] + strlen ("--json=");
      else
        argv[out++] = argv[i];
    }
  argv[out] = NULL;
  *argc = out;
  return path;
}

/* ------------------------------------------------------------------ the report */

struct _BenchReport {
  char *benchmark;
  char *table;
  char *title;
  GString *params;  /* "key": value, ... */
  GString *env;
  GString *notes;   /* "...", ... */
  GString *rows;    /* {...}, ... */
};

static void
append_string (GString    *out,
               const char *s)
{
  g_string_append_c (out, '"');
  for (const char *p = s; *p != '\0'; p++)
    {
      unsigned char c = (unsigned char) *p;

      if (c == '"' || c == '\\')
        g_string_append_printf (out, "\\%c", c);
      else if (c == '\n')
        g_string_append (out, "\\n");
      else if (c == '\t')
        g_string_append (out, "\\t");
      else if (c < 0x20)
        g_string_append_printf (out, "\\u%04x", c);
      else
        g_string_append_c (out, (char) c);  /* UTF-8 passes through */
    }
  g_string_append_c (out, '"');
}

static void
append_number (GString *out,
               double   value)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];

  if (!isfinite (value))
    g_string_append (out, "null");
  else
    g_string_append (out, g_ascii_formatd (buf, sizeof buf, "%.9g", value));
}

static void
separate (GString *list)
{
  if (list->len > 0)
    g_string_append (list, ",\n  ");
}

static const char *
role_name (BenchRole role)
{
  switch (role)
    {
    case BENCH_ROLE_GCUDA:
      return "gcuda";
    case BENCH_ROLE_REFERENCE:
      return "reference";
    case BENCH_ROLE_PEER:
      return "peer";
    case BENCH_ROLE_INFO:
    default:
      return "info";
    }
}

BenchReport *
bench_report_new (const char *benchmark,
                  const char *table,
                  const char *title)
{
  BenchReport *report = g_new0 (BenchReport, 1);

  report->benchmark = g_strdup (benchmark);
  report->table = g_strdup (table);
  report->title = g_strdup (title);
  report->params = g_string_new (NULL);
  report->env = g_string_new (NULL);
  report->notes = g_string_new (NULL);
  report->rows = g_string_new (NULL);
  {
    /* what this program was built with and runs */
    g_autofree char *headers = g_strdup_printf ("%d.%d", CUDA_VERSION / 1000, CUDA_VERSION % 1000 / 10);
    g_autofree char *library = g_strdup_printf ("%u.%u.%u", gcuda_get_major_version (), gcuda_get_minor_version (),
                                                gcuda_get_micro_version ());

    bench_report_env (report, "cuda_headers", headers);
    bench_report_env (report, "gcuda_library", library);
  }
  return report;
}

void
bench_report_param_int (BenchReport *report,
                        const char  *key,
                        gint64       value)
{
  if (report->params->len > 0)
    g_string_append (report->params, ", ");
  append_string (report->params, key);
  g_string_append_printf (report->params, ": %" G_GINT64_FORMAT, value);
}

void
bench_report_env (BenchReport *report,
                  const char  *key,
                  const char  *value)
{
  if (report->env->len > 0)
    g_string_append (report->env, ", ");
  append_string (report->env, key);
  g_string_append (report->env, ": ");
  append_string (report->env, value != NULL ? value : "");
}

void
bench_report_note (BenchReport *report,
                   const char  *format,
                   ...)
{
  g_autofree char *note = NULL;
  va_list args;

  va_start (args, format);
  note = g_strdup_vprintf (format, args);
  va_end (args);
  if (report->notes->len > 0)
    g_string_append (report->notes, ", ");
  append_string (report->notes, note);
}

static void
row_start (BenchReport *report,
           const char  *group,
           const char  *name,
           BenchRole    role)
{
  GString *out = report->rows;

  separate (out);
  g_string_append (out, "{\"group\": ");
  append_string (out, group);
  g_string_append (out, ", \"name\": ");
  append_string (out, name);
  g_string_append (out, ", \"role\": ");
  append_string (out, role_name (role));
}

static int
compare_doubles (const void *a,
                 const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;

  return (x > y) - (x < y);
}

void
bench_report_row (BenchReport  *report,
                  const char   *group,
                  const char   *name,
                  BenchRole     role,
                  const char   *unit,
                  gboolean      higher_better,
                  const double *samples,
                  int           n,
                  const char   *reference,
                  const char   *limit,
                  const char   *per_sample)
{
  GString *out = report->rows;
  double *sorted;

  if (n < 1)
    {
      bench_report_not_run (report, group, name, role, "no samples");
      return;
    }
  sorted = g_memdup2 (samples, n * sizeof *samples);
  qsort (sorted, n, sizeof *sorted, compare_doubles);

  row_start (report, group, name, role);
  g_string_append (out, ", \"unit\": ");
  append_string (out, unit);
  g_string_append_printf (out, ", \"better\": \"%s\"", higher_better ? "higher" : "lower");
  g_string_append (out, ", \"min\": ");
  append_number (out, sorted[0]);
  g_string_append (out, ", \"median\": ");
  append_number (out, n % 2 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2);
  g_string_append (out, ", \"max\": ");
  append_number (out, sorted[n - 1]);
  g_string_append_printf (out, ", \"reps\": %d", n);
  if (reference != NULL)
    {
      g_string_append (out, ", \"reference\": ");
      append_string (out, reference);
    }
  if (limit != NULL)
    {
      g_string_append (out, ", \"limit\": ");
      append_string (out, limit);
    }
  if (per_sample != NULL)
    {
      g_string_append (out, ", \"per_sample\": ");
      append_string (out, per_sample);
    }
  g_string_append (out, ", \"samples\": [");
  for (int i = 0; i < n; i++)
    {
      if (i > 0)
        g_string_append (out, ", ");
      append_number (out, samples[i]);
    }
  g_string_append (out, "]}");
  g_free (sorted);
}

void
bench_report_not_run (BenchReport *report,
                      const char  *group,
                      const char  *name,
                      BenchRole    role,
                      const char  *reason)
{
  row_start (report, group, name, role);
  g_string_append (report->rows, ", \"not_run\": ");
  append_string (report->rows, reason);
  g_string_append (report->rows, "}");
}

void
bench_report_finish (BenchReport *report,
                     const char  *path)
{
  if (path != NULL)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(GString) doc = g_string_new ("{\"schema\": 1, \"benchmark\": ");

      append_string (doc, report->benchmark);
      g_string_append (doc, ", \"table\": ");
      append_string (doc, report->table);
      g_string_append (doc, ", \"title\": ");
      append_string (doc, report->title);
      g_string_append_printf (doc, ",\n \"params\": {%s},\n \"env\": {%s},\n \"notes\": [%s],\n \"rows\": [\n  %s\n ]}\n",
                              report->params->str, report->env->str, report->notes->str, report->rows->str);
      if (!g_file_set_contents (path, doc->str, doc->len, &error))
        {
          fprintf (stderr, "%s: %s\n", g_get_prgname (), error->message);
          exit (1);
        }
    }
  g_string_free (report->params, TRUE);
  g_string_free (report->env, TRUE);
  g_string_free (report->notes, TRUE);
  g_string_free (report->rows, TRUE);
  g_free (report->benchmark);
  g_free (report->table);
  g_free (report->title);
  g_free (report);
}
