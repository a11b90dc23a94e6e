/* gen-module-image-seeds.c: the seeds of fuzz-module-image, made at build
 * time into the directory named first on the command line
 *
 * NVRTC's cubins and PTX (through GCuda's compiler, no driver needed),
 * fatbins wrapped around them (uncompressed, LZ4, Zstandard, names and JIT
 * options), every damaged image of tests/c/gcuda-test-images.c, cuts and
 * byte flips of the valid ones, and, when the toolkit's fatbinary is given
 * second, what it writes in each compression mode.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include <string.h>

#include <glib/gstdio.h>

#include "gcuda-test-images.h"

static const char plain_source[] =
  "__constant__ float coeffs[16];\n"
  "__device__ int offset;\n"
  "__global__ void scale (const float *x, float *y, int n)\n"
  "{\n"
  "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
  "  if (i < n)\n"
  "    y[i] = coeffs[i % 16] * x[i] + (float) offset;\n"
  "}\n";

/* more sections: shared memory, atomics, printf, a callee */
static const char rich_source[] =
  "__device__ unsigned counts[64];\n"
  "__device__ __noinline__ float square (float v) { return v * v; }\n"
  "__global__ void histogram (const float *x, int n)\n"
  "{\n"
  "  __shared__ unsigned local[64];\n"
  "  local[threadIdx.x % 64] = 0;\n"
  "  __syncthreads ();\n"
  "  for (int i = threadIdx.x; i < n; i += blockDim.x)\n"
  "    atomicAdd (&local[(unsigned) square (x[i]) % 64], 1u);\n"
  "  __syncthreads ();\n"
  "  atomicAdd (&counts[threadIdx.x % 64], local[threadIdx.x % 64]);\n"
  "  if (threadIdx.x == 0 && n < 0)\n"
  "    printf (\"negative n %d\\n\", n);\n"
  "}\n";

static guint written;

static void
write_seed (const char   *dir,
            const char   *name,
            const guint8 *data,
            gsize         size)
{
  g_autofree char *path = g_build_filename (dir, name, NULL);
  GError *error = NULL;

  if (!g_file_set_contents (path, (const char *) data, size, &error))
    g_error ("%s", error->message);
  written++;
}

static void
write_bytes (const char *dir,
             const char *name,
             GBytes     *bytes)
{
  write_seed (dir, name, g_bytes_get_data (bytes, NULL), g_bytes_get_size (bytes));
}

/* A valid image, then cut short at a few places and with a few bytes
 * flipped (a fixed seed: the same seeds every build). */
static void
write_variants (const char *dir,
                const char *name,
                GBytes     *image,
                GRand      *rand)
{
  const guint8 *data = g_bytes_get_data (image, NULL);
  gsize size = g_bytes_get_size (image);

  write_bytes (dir, name, image);
  for (guint quarter = 1; quarter < 4; quarter++)
    {
      g_autofree char *cut = g_strdup_printf ("%s-cut-%u-of-4", name, quarter);

      write_seed (dir, cut, data, size * quarter / 4);
    }
  {
    g_autofree char *cut = g_strdup_printf ("%s-cut-last-byte", name);

    write_seed (dir, cut, data, size - 1);
  }
  for (guint m = 0; m < 4; m++)
    {
      g_autofree char *flipped = g_strdup_printf ("%s-flipped-%u", name, m);
      g_autofree guint8 *copy = g_memdup2 (data, size);

      for (guint k = 0; k < 1 + m * 2; k++)
        copy[g_rand_int_range (rand, 0, size)] ^= 1 << g_rand_int_range (rand, 0, 8);
      write_seed (dir, flipped, copy, size);
    }
}

static void
write_images (const char *dir,
              const char *prefix,
              const char *source,
              guint       arch,
              GRand      *rand)
{
  TestImages images;

  test_images_init (&images, source, arch);
  for (const TestCraftedImage *c = test_valid_images; c->name != NULL; c++)
    {
      g_autoptr(GBytes) image = c->make (&images);
      g_autofree char *name = g_strdup_printf ("%s-%s", prefix, c->name);

      write_variants (dir, name, image, rand);
    }
  for (const TestCraftedImage *c = test_damaged_images; c->name != NULL; c++)
    {
      g_autoptr(GBytes) image = c->make (&images);
      g_autofree char *name = g_strdup_printf ("%s-damaged-%s", prefix, c->name);

      write_bytes (dir, name, image);
    }
  test_images_clear (&images);
}

/* What the toolkit's fatbinary writes, in each compression mode. */
static void
write_fatbinary (const char *dir,
                 const char *fatbinary)
{
  static const char * const modes[][3] = {
    { "plain", "--compress=false", NULL },
    { "default", NULL },
    { "zstd", "--compress-all", NULL },
    { "lz4", "--compress-all", "--compress-mode=speed" },
  };
  g_autofree char *tmp = g_dir_make_tmp ("gcuda-seeds-XXXXXX", NULL);
  g_autofree char *cubin = g_build_filename (tmp, "k.cubin", NULL);
  g_autofree char *ptx = g_build_filename (tmp, "k.ptx", NULL);
  g_autofree char *out = g_build_filename (tmp, "k.fatbin", NULL);
  TestImages images;

  test_images_init (&images, rich_source, 90);
  g_file_set_contents (cubin, g_bytes_get_data (images.cubin, NULL), g_bytes_get_size (images.cubin), NULL);
  g_file_set_contents (ptx, g_bytes_get_data (images.ptx, NULL), -1, NULL);
  for (guint m = 0; m < G_N_ELEMENTS (modes); m++)
    {
      g_autofree char *create = g_strdup_printf ("--create=%s", out);
      g_autofree char *elf = g_strdup_printf ("--image3=kind=elf,sm=90,file=%s", cubin);
      g_autofree char *text = g_strdup_printf ("--image3=kind=ptx,sm=90,file=%s", ptx);
      const char *argv[] = { fatbinary, "-64", create, elf, text, modes[m][1], modes[m][2], NULL };
      g_autofree char *contents = NULL, *name = NULL;
      GError *error = NULL;
      gsize length = 0;
      int status = 0;

      if (!g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_DEFAULT, NULL, NULL, NULL, NULL, &status, &error) ||
          !g_spawn_check_wait_status (status, &error) ||
          !g_file_get_contents (out, &contents, &length, &error))
        g_error ("%s: %s", fatbinary, error->message);
      name = g_strdup_printf ("fatbinary-%s", modes[m][0]);
      write_seed (dir, name, (const guint8 *) contents, length);
    }
  g_unlink (out);
  g_unlink (cubin);
  g_unlink (ptx);
  g_rmdir (tmp);
  test_images_clear (&images);
}

/* Without NVRTC (a clang build on a machine without the toolkit's NVRTC)
 * the seeds are a few hand-made headers: the fuzzer still builds and runs,
 * with a poorer start. */
static gboolean
nvrtc_works (void)
{
  g_autoptr(GCudaCompiler) compiler = gcuda_compiler_new (NULL);
  g_autoptr(GCudaProgram) program = NULL;
  g_autoptr(GError) error = NULL;

  gcuda_compiler_set_arch (compiler, "sm_90");
  gcuda_compiler_set_cache_dir (compiler, "");
  program = gcuda_compiler_compile (compiler, "__global__ void k () {}", &error);
  if (program == NULL)
    g_printerr ("gen-module-image-seeds: NVRTC does not compile (%s): hand-made seeds only\n", error->message);
  return program != NULL;
}

static void
write_hand_made (const char *dir)
{
  static const char ptx[] = ".version 9.0\n.target sm_90\n.address_size 64\n.visible .entry k()\n{\n\tret;\n}\n";
  guint8 elf[64] = { 0x7f, 'E', 'L', 'F', 2, 1, 1, 0x41, 8 };
  guint8 fatbin[16 + 64 + sizeof ptx + 7] = { 0x50, 0xed, 0x55, 0xba, 0x01, 0x00, 0x10, 0x00 };
  gsize payload = (sizeof ptx + 7) & ~(gsize) 7;

  test_image_set (elf, 18, 2, 190);        /* EM_CUDA */
  test_image_set (elf, 52, 2, 64);         /* e_ehsize */
  test_image_set (elf, 58, 2, 64);         /* e_shentsize */
  write_seed (dir, "hand-elf-header", elf, sizeof elf);
  write_seed (dir, "hand-ptx", (const guint8 *) ptx, sizeof ptx);
  test_image_set (fatbin, 8, 8, 64 + payload);
  test_image_set (fatbin, 16, 2, 1);       /* PTX */
  test_image_set (fatbin, 18, 2, 0x0101);
  test_image_set (fatbin, 20, 4, 64);      /* header size */
  test_image_set (fatbin, 24, 8, payload);
  test_image_set (fatbin, 16 + 28, 4, 90);
  test_image_set (fatbin, 16 + 40, 8, 0x11);
  memcpy (fatbin + 80, ptx, sizeof ptx);
  write_seed (dir, "hand-fatbin-ptx", fatbin, 16 + 64 + payload);
}

int
main (int    argc,
      char **argv)
{
  g_autoptr(GRand) rand = g_rand_new_with_seed (20260525);
  const char *dir;

  if (argc < 2)
    {
      g_printerr ("usage: %s OUTPUT-DIRECTORY [FATBINARY]\n", argv[0]);
      return 2;
    }
  dir = argv[1];
  if (g_mkdir_with_parents (dir, 0755) != 0)
    g_error ("cannot make %s", dir);

  write_hand_made (dir);
  if (nvrtc_works ())
    {
      write_images (dir, "sm90", plain_source, 90, rand);
      write_images (dir, "sm90-rich", rich_source, 90, rand);
      write_images (dir, "sm120-rich", rich_source, 120, rand);
      if (argc > 2 && g_file_test (argv[2], G_FILE_TEST_IS_EXECUTABLE))
        write_fatbinary (dir, argv[2]);
    }
  g_print ("%u seeds in %s\n", written, dir);
  return 0;
}
