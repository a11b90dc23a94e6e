/* gcuda-kernel-bundle-private.h: kernels shipped prebuilt (gcuda-compile's
 * output: a manifest and the images it names, in a GResource or a directory)
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

/* The manifest, version 1: ASCII text, lines ending in '\n' (the last one
 * too), fields separated by one space, no blank lines, no comments:
 *
 *   gcuda-kernel-bundle 1
 *   source fractal.cu
 *   nvrtc 13.0
 *   image cubin sm_90 fractal.sm_90.cubin 5432 <sha256 of the file, 64 lowercase hex digits>
 *   image ptx compute_75 fractal.compute_75.ptx 2345 <sha256>
 *   end
 *
 * The first line is the format and its version; "source" and "nvrtc" come
 * once each, in this order, then one "image" line per image (kind cubin with sm_XY, or ptx
 * with compute_XY; at most one image per kind and architecture; file names
 * of [A-Za-z0-9._+-], not starting with '.', unique), and "end" last (a
 * manifest cut at a line's end is refused too). Anything else is refused
 * with the line's number. */
#define GCUDA_BUNDLE_MANIFEST_NAME    "manifest"
#define GCUDA_BUNDLE_FORMAT           "gcuda-kernel-bundle"
#define GCUDA_BUNDLE_VERSION          1
#define GCUDA_BUNDLE_MAX_MANIFEST     (64 * 1024)
#define GCUDA_BUNDLE_MAX_LINE         512
#define GCUDA_BUNDLE_MAX_NAME         128
#define GCUDA_BUNDLE_MAX_IMAGES       64
#define GCUDA_BUNDLE_MAX_IMAGE_SIZE   (G_GUINT64_CONSTANT (256) * 1024 * 1024)
#define GCUDA_BUNDLE_MAX_ARCH         9999

typedef enum {
  GCUDA_BUNDLE_IMAGE_CUBIN,
  GCUDA_BUNDLE_IMAGE_PTX,
} GCudaBundleImageKind;

typedef struct {
  GCudaBundleImageKind kind;
  guint arch;          /* 90 for sm_90 or compute_90 */
  char *file;
  guint64 size;
  char sha256[65];     /* lowercase hex */
} GCudaBundleImage;

typedef struct {
  char *source;
  guint nvrtc_major;
  guint nvrtc_minor;
  GPtrArray *images;   /* of GCudaBundleImage, in the manifest's order */
} GCudaBundle;

/* Where a bundle lies: a GResource path or a directory. */
typedef struct {
  const char *resource_path;  /* without a trailing '/' */
  GFile *directory;
} GCudaBundleLocation;

GCudaBundle *_gcuda_bundle_new (void);
void         _gcuda_bundle_free (GCudaBundle *bundle);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (GCudaBundle, _gcuda_bundle_free)

/* Adds an image (gcuda-compile); the strings are copied. */
void _gcuda_bundle_add_image (GCudaBundle          *bundle,
                              GCudaBundleImageKind  kind,
                              guint                 arch,
                              const char           *file,
                              GBytes               *contents);

/* Parses @size bytes (no NUL needed); GCUDA_ERROR_INVALID_ARGUMENT naming
 * the line. */
GCudaBundle *_gcuda_bundle_parse (const char  *data,
                                  gsize        size,
                                  GError     **error);

/* The manifest's text (which _gcuda_bundle_parse() takes back). */
char *_gcuda_bundle_to_string (const GCudaBundle *bundle);

/* "sm_90" / "compute_75" -> 90 / 75; FALSE for anything else. */
gboolean _gcuda_bundle_parse_arch (const char           *text,
                                   GCudaBundleImageKind  kind,
                                   guint                *arch);

gboolean _gcuda_bundle_file_name_is_valid (const char *name);

/* What the bundle holds, for messages: "cubins for sm_75, sm_80; PTX for compute_75". */
char *_gcuda_bundle_describe (const GCudaBundle *bundle);

/* The image for a device of compute capability @device_arch (major * 10 +
 * minor): the cubin of that exact architecture, else the cubin of the same
 * major version with the highest minor not above the device's (cubins run
 * on later minor versions), else the PTX of the highest compute_XY not
 * above the device's (the driver compiles it); else NULL with
 * GCUDA_ERROR_NOT_SUPPORTED naming the device's sm_XY, @where and what the
 * bundle holds. */
const GCudaBundleImage *_gcuda_bundle_select (const GCudaBundle  *bundle,
                                              guint               device_arch,
                                              const char         *where,
                                              GError            **error);

/* For messages: the resource path or the directory's name; free it. */
char *_gcuda_bundle_location_describe (const GCudaBundleLocation *location);

/* Reads and parses the manifest at @location (GIO's own error when it
 * cannot be read: G_RESOURCE_ERROR_NOT_FOUND, G_IO_ERROR_NOT_FOUND …). */
GCudaBundle *_gcuda_bundle_open (const GCudaBundleLocation  *location,
                                 GError                    **error);

/* Reads @image from @location, checks its size and SHA-256 against the
 * manifest (GCUDA_ERROR_INVALID_ARGUMENT when they differ); PTX comes back
 * NUL-terminated, every image 8-byte aligned. */
GBytes *_gcuda_bundle_read_image (const GCudaBundleLocation  *location,
                                  const GCudaBundleImage     *image,
                                  GError                    **error);

G_END_DECLS
