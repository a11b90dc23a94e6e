/* tsan-glib.c: what ThreadSanitizer needs to know of GLib's synchronisation
 *
 * Linked into the test programs of a -Db_sanitize=thread build only. GLib is
 * not built with ThreadSanitizer: GMutex, GCond, GRecMutex, GRWLock and the
 * bit locks are futexes and atomics inside libglib, which TSan does not see,
 * so every access that one of them orders looks like a race (the report
 * names GCuda's code, or the test's, and the other side of a locked
 * section). The same goes for reference counts: g_object_unref() and its
 * kin count down with atomics inside GLib, so the thread that drops the last
 * reference and finalizes seems to race with every other thread's last use.
 *
 * These wrappers interpose the functions GCuda and the tests call (the test
 * program comes first in symbol lookup; GLib's calls inside itself are not
 * seen) and tell TSan what each one means: a lock acquires, an unlock
 * releases (on the lock's address), a wait on a condition releases and
 * acquires its mutex, g_once_init_leave() releases what g_once_init_enter()
 * acquires, dropping a reference releases, then acquires, on the object's
 * address, so the finalizing thread has seen every other thread's uses, and
 * g_thread_pool_push() releases on the item, which the pool's function
 * acquires before it runs (GThreadPool's queue is locked inside GLib).
 * Nothing else changes: each wrapper calls GLib's function.
 *
 * GSlice hands memory between threads through its magazines, which TSan
 * cannot see either: the programs run with G_SLICE=always-malloc (set by
 * tests/c/meson.build in such a build).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#define _GNU_SOURCE
#include <dlfcn.h>
#include <glib-object.h>

void __tsan_acquire (void *addr);
void __tsan_release (void *addr);

/* GLib's function @name, of type @type, looked up once */
#define REAL(name, type) \
  static __typeof__ (type) real_##name; \
  __typeof__ (type) name##_real = __atomic_load_n (&real_##name, __ATOMIC_ACQUIRE); \
  if (G_UNLIKELY (name##_real == NULL)) \
    { \
      name##_real = (__typeof__ (type)) dlsym (RTLD_NEXT, #name); \
      __atomic_store_n (&real_##name, name##_real, __ATOMIC_RELEASE); \
    }

/* ------------------------------------------------------------ locks */

void
g_mutex_lock (GMutex *mutex)
{
  REAL (g_mutex_lock, void (*) (GMutex *));
  g_mutex_lock_real (mutex);
  __tsan_acquire (mutex);
}

gboolean
g_mutex_trylock (GMutex *mutex)
{
  REAL (g_mutex_trylock, gboolean (*) (GMutex *));
  gboolean locked = g_mutex_trylock_real (mutex);

  if (locked)
    __tsan_acquire (mutex);
  return locked;
}

void
g_mutex_unlock (GMutex *mutex)
{
  REAL (g_mutex_unlock, void (*) (GMutex *));
  __tsan_release (mutex);
  g_mutex_unlock_real (mutex);
}

void
g_rec_mutex_lock (GRecMutex *mutex)
{
  REAL (g_rec_mutex_lock, void (*) (GRecMutex *));
  g_rec_mutex_lock_real (mutex);
  __tsan_acquire (mutex);
}

gboolean
g_rec_mutex_trylock (GRecMutex *mutex)
{
  REAL (g_rec_mutex_trylock, gboolean (*) (GRecMutex *));
  gboolean locked = g_rec_mutex_trylock_real (mutex);

  if (locked)
    __tsan_acquire (mutex);
  return locked;
}

void
g_rec_mutex_unlock (GRecMutex *mutex)
{
  REAL (g_rec_mutex_unlock, void (*) (GRecMutex *));
  __tsan_release (mutex);
  g_rec_mutex_unlock_real (mutex);
}

void
g_rw_lock_writer_lock (GRWLock *lock)
{
  REAL (g_rw_lock_writer_lock, void (*) (GRWLock *));
  g_rw_lock_writer_lock_real (lock);
  __tsan_acquire (lock);
}

gboolean
g_rw_lock_writer_trylock (GRWLock *lock)
{
  REAL (g_rw_lock_writer_trylock, gboolean (*) (GRWLock *));
  gboolean locked = g_rw_lock_writer_trylock_real (lock);

  if (locked)
    __tsan_acquire (lock);
  return locked;
}

void
g_rw_lock_writer_unlock (GRWLock *lock)
{
  REAL (g_rw_lock_writer_unlock, void (*) (GRWLock *));
  __tsan_release (lock);
  g_rw_lock_writer_unlock_real (lock);
}

/* readers release too: stricter than the lock (readers seem ordered among
 * themselves), which hides no race between a reader and a writer */
void
g_rw_lock_reader_lock (GRWLock *lock)
{
  REAL (g_rw_lock_reader_lock, void (*) (GRWLock *));
  g_rw_lock_reader_lock_real (lock);
  __tsan_acquire (lock);
}

gboolean
g_rw_lock_reader_trylock (GRWLock *lock)
{
  REAL (g_rw_lock_reader_trylock, gboolean (*) (GRWLock *));
  gboolean locked = g_rw_lock_reader_trylock_real (lock);

  if (locked)
    __tsan_acquire (lock);
  return locked;
}

void
g_rw_lock_reader_unlock (GRWLock *lock)
{
  REAL (g_rw_lock_reader_unlock, void (*) (GRWLock *));
  __tsan_release (lock);
  g_rw_lock_reader_unlock_real (lock);
}

void
g_cond_wait (GCond  *cond,
             GMutex *mutex)
{
  REAL (g_cond_wait, void (*) (GCond *, GMutex *));
  __tsan_release (mutex);
  g_cond_wait_real (cond, mutex);
  __tsan_acquire (mutex);
}

gboolean
g_cond_wait_until (GCond  *cond,
                   GMutex *mutex,
                   gint64  end_time)
{
  REAL (g_cond_wait_until, gboolean (*) (GCond *, GMutex *, gint64));
  gboolean signalled;

  __tsan_release (mutex);
  signalled = g_cond_wait_until_real (cond, mutex, end_time);
  __tsan_acquire (mutex);
  return signalled;
}

void
g_bit_lock (volatile gint *address,
            gint           lock_bit)
{
  REAL (g_bit_lock, void (*) (volatile gint *, gint));
  g_bit_lock_real (address, lock_bit);
  __tsan_acquire ((void *) address);
}

gboolean
g_bit_trylock (volatile gint *address,
               gint           lock_bit)
{
  REAL (g_bit_trylock, gboolean (*) (volatile gint *, gint));
  gboolean locked = g_bit_trylock_real (address, lock_bit);

  if (locked)
    __tsan_acquire ((void *) address);
  return locked;
}

void
g_bit_unlock (volatile gint *address,
              gint           lock_bit)
{
  REAL (g_bit_unlock, void (*) (volatile gint *, gint));
  __tsan_release ((void *) address);
  g_bit_unlock_real (address, lock_bit);
}

void
(g_pointer_bit_lock) (volatile void *address,
                      gint           lock_bit)
{
  REAL (g_pointer_bit_lock, void (*) (volatile void *, gint));
  g_pointer_bit_lock_real (address, lock_bit);
  __tsan_acquire ((void *) address);
}

gboolean
(g_pointer_bit_trylock) (volatile void *address,
                         gint           lock_bit)
{
  REAL (g_pointer_bit_trylock, gboolean (*) (volatile void *, gint));
  gboolean locked = g_pointer_bit_trylock_real (address, lock_bit);

  if (locked)
    __tsan_acquire ((void *) address);
  return locked;
}

void
(g_pointer_bit_unlock) (volatile void *address,
                        gint           lock_bit)
{
  REAL (g_pointer_bit_unlock, void (*) (volatile void *, gint));
  __tsan_release ((void *) address);
  g_pointer_bit_unlock_real (address, lock_bit);
}

/* ------------------------------------------------------------ once */

gboolean
(g_once_init_enter) (volatile void *location)
{
  REAL (g_once_init_enter, gboolean (*) (volatile void *));
  gboolean enter = g_once_init_enter_real (location);

  /* FALSE: another thread initialized it meanwhile */
  if (!enter)
    __tsan_acquire ((void *) location);
  return enter;
}

void
(g_once_init_leave) (volatile void *location,
                     gsize          result)
{
  REAL (g_once_init_leave, void (*) (volatile void *, gsize));
  __tsan_release ((void *) location);
  g_once_init_leave_real (location, result);
}

/* ------------------------------------------------------------ references */

#define UNREF(name, type) \
  void \
  name (type *p) \
  { \
    REAL (name, void (*) (type *)); \
    if (p != NULL) \
      { \
        __tsan_release (p); \
        __tsan_acquire (p); \
      } \
    name##_real (p); \
  }

UNREF (g_object_unref, void)
UNREF (g_bytes_unref, GBytes)
UNREF (g_source_unref, GSource)
UNREF (g_main_context_unref, GMainContext)
UNREF (g_hash_table_unref, GHashTable)
UNREF (g_ptr_array_unref, GPtrArray)
UNREF (g_array_unref, GArray)
UNREF (g_byte_array_unref, GByteArray)
UNREF (g_variant_unref, GVariant)

/* ------------------------------------------------------------ thread pools */

typedef struct {
  GFunc func;
  gpointer user_data;
} PoolFunc;

static void
pool_trampoline (gpointer data,
                 gpointer user_data)
{
  PoolFunc *pool_func = user_data;

  __tsan_acquire (data);
  pool_func->func (data, pool_func->user_data);
}

GThreadPool *
g_thread_pool_new (GFunc     func,
                   gpointer  user_data,
                   gint      max_threads,
                   gboolean  exclusive,
                   GError  **error)
{
  REAL (g_thread_pool_new, GThreadPool *(*) (GFunc, gpointer, gint, gboolean, GError **));
  /* lives as long as the pool, which GCuda never frees */
  PoolFunc *pool_func = g_new (PoolFunc, 1);

  pool_func->func = func;
  pool_func->user_data = user_data;
  return g_thread_pool_new_real (pool_trampoline, pool_func, max_threads, exclusive, error);
}

gboolean
g_thread_pool_push (GThreadPool  *pool,
                    gpointer      data,
                    GError      **error)
{
  REAL (g_thread_pool_push, gboolean (*) (GThreadPool *, gpointer, GError **));
  __tsan_release (data);
  return g_thread_pool_push_real (pool, data, error);
}
