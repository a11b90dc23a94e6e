/* gen-cache-fuzz-seeds.c: writes the seed inputs of fuzz-cache-entry and
 * fuzz-include-scan at build time
 *
 *   gen-cache-fuzz-seeds ENTRY_DIR SCAN_DIR
 *
 * Entries are made by the cache's own writer (so they follow the format
 * of the library being built), around synthetic images and, where NVRTC
 * can be loaded (it needs no GPU), a real PTX and a real cubin with the
 * lowered names of template instantiations. Scan seeds are sources with
 * every kind of directive the scanner reads.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <stdio.h>
#include <string.h>

#include <glib.h>
#include <glib/gstdio.h>
#include <gcuda.h>

#include "gcuda-compile-cache-private.h"

#define KEY "5eed5eed5eed5eed5eed5eed5eed5eed5eed5eed5eed5eed5eed5eed5eed5eed"

static void
write_seed (const char *dir,
            const char *name,
            const void *data,
            gsize       len)
{
  g_autofree char *path = g_build_filename (dir, name, NULL);
  g_autoptr(GError) error = NULL;

  if (!g_file_set_contents (path, data, len, &error))
    g_error ("%s", error->message);
}

static void
write_entry (const char *dir,
             const char *name,
             GBytes     *image,
             const char *log,
             GHashTable *lowered)
{
  g_autoptr(GBytes) entry = _gcuda_compile_cache_build_entry (KEY, image, log, lowered);

  write_seed (dir, name, g_bytes_get_data (entry, NULL), g_bytes_get_size (entry));
}

static GHashTable *
awkward_lowered (void)
{
  GHashTable *t = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);

  g_hash_table_insert (t, g_strdup ("f<\tint>"), g_strdup ("_Z1fIiEvPT_"));
  g_hash_table_insert (t, g_strdup ("g<\nfloat>"), g_strdup ("_Z1gIfEvPT_"));
  g_hash_table_insert (t, g_strdup ("3:x,"), g_strdup (""));
  return t;
}

/* A real compile's result, with its lowered names, or FALSE without NVRTC */
static gboolean
compile (GCudaProgramKind   kind,
         GBytes           **image,
         GHashTable       **lowered)
{
  static const char source[] =
    "template <typename T> __global__ void fill (T *p, T v) { p[threadIdx.x] = v; }\n"
    "__device__ int counter;\n";
  static const char * const names[] = { "fill<float>", "fill<\tint>", "&counter" };
  g_autoptr(GCudaCompiler) compiler = gcuda_compiler_new (NULL);
  g_autoptr(GCudaProgram) program = NULL;
  g_autoptr(GError) error = NULL;

  gcuda_compiler_set_arch (compiler, "sm_90");
  gcuda_compiler_set_target (compiler, kind);
  gcuda_compiler_set_no_extern_c (compiler, TRUE);
  gcuda_compiler_set_cache_dir (compiler, "");
  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    gcuda_compiler_add_name_expression (compiler, names[i]);
  program = gcuda_compiler_compile (compiler, source, &error);
  if (program == NULL)
    {
      fprintf (stderr, "gen-cache-fuzz-seeds: no real image (%s)\n", error->message);
      return FALSE;
    }
  *image = g_bytes_ref (gcuda_program_get_image (program));
  *lowered = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    g_hash_table_insert (*lowered, g_strdup (names[i]),
                         g_strdup (gcuda_program_get_lowered_name (program, names[i])));
  return TRUE;
}

static const char * const scan_seeds[] = {
  "#include \"h1.h\"\n#include <h2.h>\n__global__ void k (int *p) { *p = X; }\n"
  "\n//@@\n#pragma once\n#include \"h2.h\"\n\n//@@\n#define X 1\n",
  "#include \\\n  \"h1.h\"\n# \\\ninclude <h2.h>\n\n//@@\n\n//@@\n",
  "/* a comment\n   ending here */ #include \"h1.h\"\n// #include <h2.h>\n\"#include <h3.h>\"\n\n//@@\n",
  "#if __has_include(\"h1.h\") && __has_include_next (<h2.h>)\n#endif\n#ifdef __has_include\n#endif\n",
  "#define H \"h1.h\"\n#include H\n",
  "#import \"h1.h\"\n#embed <h2.h>\n#include_next <h3.h>\n\n//@@\n\n//@@\n\n//@@\n",
  "#include \"h1.h\"\n\n//@@\n#include \"h2.h\"\n\n//@@\n#include \"h1.h\"\n#include <h2.h>\n",
  "#include \"h1.h\"\r\n#include \\\r\n <h2.h>\r\n\n//@@\n\n//@@\n",
  "#include </absolute/path.h>\n#include \"../up/h1.h\"\n#include <>\n#include \"unterminated\n",
  "template <typename T>\n__global__ void axpy (T a, const T *x, T *y, int n)\n"
  "{\n  int i = blockIdx.x * blockDim.x + threadIdx.x;\n  if (i < n) y[i] = a * x[i] + y[i];\n}\n",
};

int
main (int    argc,
      char **argv)
{
  const char *entry_dir, *scan_dir;
  g_autoptr(GHashTable) awkward = awkward_lowered ();
  g_autoptr(GHashTable) empty = g_hash_table_new (g_str_hash, g_str_equal);
  g_autoptr(GBytes) small = g_bytes_new_static ("\x7f" "ELF not really", 14);
  g_autoptr(GBytes) nothing = g_bytes_new_static ("", 0);
  g_autoptr(GBytes) image = NULL;
  g_autoptr(GHashTable) lowered = NULL;
  g_autofree char *lowered_text = NULL;

  if (argc != 3)
    {
      fprintf (stderr, "usage: %s ENTRY_DIR SCAN_DIR\n", argv[0]);
      return 2;
    }
  entry_dir = argv[1];
  scan_dir = argv[2];
  if (g_mkdir_with_parents (entry_dir, 0755) != 0 || g_mkdir_with_parents (scan_dir, 0755) != 0)
    {
      perror ("mkdir");
      return 1;
    }

  write_entry (entry_dir, "entry-empty", nothing, NULL, NULL);
  write_entry (entry_dir, "entry-log", small, "kernel.cu(3): warning: something\n", NULL);
  write_entry (entry_dir, "entry-lowered", small, NULL, awkward);
  write_entry (entry_dir, "entry-lowered-empty", small, "", empty);
  if (compile (GCUDA_PROGRAM_KIND_PTX, &image, &lowered))
    {
      write_entry (entry_dir, "entry-ptx", image, "", lowered);
      g_clear_pointer (&image, g_bytes_unref);
      g_clear_pointer (&lowered, g_hash_table_unref);
    }
  if (compile (GCUDA_PROGRAM_KIND_CUBIN, &image, &lowered))
    write_entry (entry_dir, "entry-cubin", image, NULL, lowered);
  /* the lowered names' text alone */
  lowered_text = _gcuda_compile_cache_serialize_lowered (awkward);
  write_seed (entry_dir, "lowered-text", lowered_text, strlen (lowered_text));

  for (guint i = 0; i < G_N_ELEMENTS (scan_seeds); i++)
    {
      g_autofree char *name = g_strdup_printf ("scan-%02u", i);

      write_seed (scan_dir, name, scan_seeds[i], strlen (scan_seeds[i]));
    }
  /* a NUL in the middle of a source: scanned past */
  {
    static const char with_nul[] = "#include \"h1.h\"\0#include \"h2.h\"\n";

    write_seed (scan_dir, "scan-nul", with_nul, sizeof with_nul - 1);
  }
  return 0;
}
