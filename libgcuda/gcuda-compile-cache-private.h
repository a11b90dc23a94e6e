/* gcuda-compile-cache-private.h: the on-disk and in-process cache of compiled programs
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* A key: lower-case hex SHA-256, also the entry's file name */
#define GCUDA_COMPILE_KEY_LENGTH 64

/* What a compile depends on. Every string is UTF-8/ASCII; arrays are
 * NULL-terminated; @headers maps in-memory header names to their text. */
typedef struct {
  const char         *source;
  const char         *source_name;    /* the program's file name, e.g. "kernel.cu" */
  const char * const *options;        /* the complete NVRTC option list, arch included */
  const char * const *include_dirs;   /* also passed as -I options */
  GHashTable         *headers;        /* (nullable) name -> text */
  const char * const *name_expressions; /* (nullable) */
  const char         *target;         /* "cubin" or "ptx" */
} GCudaCompileInputs;

/* The cache key (lower-case hex SHA-256) of a compile, or NULL when what the
 * compile could read cannot be determined (an #include whose file name is a
 * macro, say): then the compile must not be cached. The key covers the
 * source, options, target, name expressions, in-memory headers, the NVRTC
 * library (its file identity, found without loading it, or its version)
 * and the content of every header file the compile could read, found by
 * following #include directives from the source as NVRTC does: "..." in the
 * including file's directory (the current directory for the source), then
 * the include dirs; <...> in the include dirs; headers it cannot find are
 * recorded as missing, so creating one changes the key. Never loads NVRTC
 * unless its file cannot be identified otherwise. */
char    *_gcuda_compile_cache_key     (const GCudaCompileInputs *inputs);

/* Keys are memoized in the process (the inputs, the current directory,
 * LD_LIBRARY_PATH and the NVRTC libraries loaded index them): a memoized
 * key is used only when every path computing it stat()ed has the identity
 * it had then (device, inode, mode, size, mtime and ctime in ns; a missing
 * path, its nearest existing ancestor's); else it is computed again. Keys
 * that read a file whose times were within 2 seconds of the computation
 * are not memoized (an edit could leave the times as they were). */

/* The cache directory from GCUDA_CACHE_DIR, else $XDG_CACHE_HOME/gcuda;
 * NULL when GCUDA_DISABLE_CACHE is set (to anything but "" or "0"), and in
 * a secure-execution (set-user-ID...) process, whose environment is its
 * invoker's: there the on-disk cache is off unless the program sets a
 * directory itself. */
char    *_gcuda_compile_cache_default_dir (void);

/* A cached image for @key: from the in-process cache, else from @dir
 * (nullable: in-process only). The directory is reached without following
 * a link or a directory anyone but the user (or root) controls, and must
 * be the user's, mode 0700 (else it is not used, with a warning once per
 * process); entries are verified (magic, version, key, lengths, a SHA-256
 * of their content), bounded in size, and must be regular files of the
 * user's; a damaged one is deleted and missed. A hit marks the entry
 * recently used. @log_out receives the stored compiler log, @lowered_out
 * the lowered names (name expression -> lowered name; NULL when none were
 * stored). */
GBytes  *_gcuda_compile_cache_lookup  (const char   *dir,
                                       const char   *key,
                                       char        **log_out,
                                       GHashTable  **lowered_out);

/* Stores an entry: in-process always; on disk in @dir (created 0700 if
 * missing) when @dir is not NULL, atomically (temporary file + rename), so
 * concurrent writers of the same key leave one valid entry; then keeps the
 * directory within GCUDA_CACHE_MAX_SIZE (least recently used entries go
 * first) and deletes stale temporary files. @lowered (nullable) maps name
 * expressions to lowered names. Failures to write are reported in @error;
 * the caller treats them as warnings. */
gboolean _gcuda_compile_cache_store   (const char  *dir,
                                       const char  *key,
                                       GBytes      *image,
                                       const char  *log,
                                       GHashTable  *lowered,
                                       GError     **error);

/* For tests and fuzzers. */

/* Forgets every in-process entry and memoized key (a test sees the disk
 * cache as a fresh process would). */
void        _gcuda_compile_cache_clear_memory      (void);

/* How many keys came from the memo, so far */
guint64     _gcuda_compile_cache_key_memo_hits     (void);

/* Sets how recent (in ns) a file's times may be for a key that read it to
 * be memoized; returns the previous value (the default is 2 s) */
gint64      _gcuda_compile_cache_set_racy_margin   (gint64 margin_ns);

/* The lowered names as entries store them, and back: parse returns NULL
 * for any text serialize would not write, and parse(serialize(t)) == t. */
char       *_gcuda_compile_cache_serialize_lowered (GHashTable *lowered);
GHashTable *_gcuda_compile_cache_parse_lowered     (const char *data,
                                                    gsize       len);

/* An entry's bytes as written to disk, and their parser (NULL for anything
 * but a valid entry for @key; the image is a view into @entry). */
GBytes     *_gcuda_compile_cache_build_entry       (const char  *key,
                                                    GBytes      *image,
                                                    const char  *log,
                                                    GHashTable  *lowered);
GBytes     *_gcuda_compile_cache_parse_entry       (GBytes      *entry,
                                                    const char  *key,
                                                    char       **log_out,
                                                    GHashTable **lowered_out);

/* GCUDA_CACHE_MAX_SIZE's syntax: digits, then K, M, G or T (also KiB...:
 * powers of 1024). FALSE for anything else, or an overflow. */
gboolean    _gcuda_compile_cache_parse_size        (const char  *text,
                                                    guint64     *size_out);

/* The key's include scan alone, over @source (@source_len bytes; NULs are
 * scanned past), with @inputs' headers and include dirs: a digest, or
 * NULL when what the compile could read cannot be determined. @files FALSE
 * looks up in-memory headers only (a fuzzer must not read the machine's
 * files). @names_out (nullable) receives each header name resolved. */
char       *_gcuda_compile_cache_scan_includes     (const GCudaCompileInputs *inputs,
                                                    const char               *source,
                                                    gsize                     source_len,
                                                    gboolean                  files,
                                                    GPtrArray                *names_out);

/* Forgets the keys remembered in the process (see _gcuda_compile_cache_key()) */
void     _gcuda_compile_cache_clear_key_memo (void);

/* Whether @key is exactly GCUDA_COMPILE_KEY_LENGTH lower-case hex digits:
 * a key becomes a file name, so nothing else may name one. */
gboolean _gcuda_compile_cache_is_valid_key (const char *key);

/* strcmp() for g_ptr_array_sort() of strings: keys hash sorted names */
int      _gcuda_compile_compare_strings (gconstpointer a,
                                         gconstpointer b);

G_END_DECLS
