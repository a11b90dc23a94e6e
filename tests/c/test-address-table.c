/* test-address-table.c: the pools' table of blocks handed out by address
 * (gcuda-pool-bins-private.c), against a GHashTable holding the same
 * entries. Needs no GPU.
 *
 * Linked with the library's objects, as the private functions are hidden in
 * libgcuda-1.so.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include <glib.h>

#include "gcuda-pool-bins-private.h"

/* Every entry of @oracle is in @table with its size, and nothing else. */
static void
assert_same (GCudaAddressTable *table,
             GHashTable        *oracle)
{
  GHashTableIter iter;
  gpointer key, value;
  guint found = 0;

  g_assert_cmpuint (table->len, ==, g_hash_table_size (oracle));
  for (guint i = 0; table->slots != NULL && i <= table->mask; i++)
    if (table->slots[2 * i] != 0)
      {
        found++;
        g_assert_true (g_hash_table_lookup_extended (oracle, GSIZE_TO_POINTER (table->slots[2 * i]), NULL, &value));
        g_assert_cmpuint (table->slots[2 * i + 1], ==, GPOINTER_TO_SIZE (value));
      }
  g_assert_cmpuint (found, ==, table->len);
  /* and each can be found by probing: steal it and put it back */
  g_hash_table_iter_init (&iter, oracle);
  while (g_hash_table_iter_next (&iter, &key, &value))
    {
      guint64 size = 0;

      g_assert_true (_gcuda_address_table_steal (table, GPOINTER_TO_SIZE (key), &size));
      g_assert_cmpuint (size, ==, GPOINTER_TO_SIZE (value));
      _gcuda_address_table_insert (table, GPOINTER_TO_SIZE (key), size);
    }
}

static void
sum_entries (guint64  address,
             guint64  size,
             gpointer data)
{
  guint64 *sums = data;

  sums[0] += address;
  sums[1] += size;
  sums[2]++;
}

/* Random inserts and steals of addresses from a small range of aligned
 * values (many share a home slot, runs wrap around the end of the table),
 * growing to a few thousand entries and shrinking back, each step checked
 * against the oracle. */
static void
test_random (void)
{
  g_autoptr(GHashTable) oracle = g_hash_table_new (g_direct_hash, g_direct_equal);
  g_autoptr(GRand) rand = g_rand_new_with_seed (g_test_rand_int ());
  GCudaAddressTable table = { 0 };
  guint64 sums[3] = { 0 }, want[3] = { 0 };
  GHashTableIter iter;
  gpointer key, value;

  for (guint step = 0; step < 40000; step++)
    {
      /* grow in the first half, shrink in the second */
      gboolean insert = g_rand_int_range (rand, 0, 100) < (step < 20000 ? 60 : 35);
      guint64 address = (guint64) g_rand_int_range (rand, 1, 6000) << 12;
      gboolean present = g_hash_table_contains (oracle, GSIZE_TO_POINTER (address));
      guint64 size = 0;

      if (insert && !present)
        {
          size = g_rand_int (rand) + 1;
          _gcuda_address_table_insert (&table, address, size);
          g_hash_table_insert (oracle, GSIZE_TO_POINTER (address), GSIZE_TO_POINTER (size));
        }
      else
        {
          g_assert_cmpint (_gcuda_address_table_steal (&table, address, &size), ==, present);
          if (present)
            {
              g_assert_cmpuint (size, ==, GPOINTER_TO_SIZE (g_hash_table_lookup (oracle, GSIZE_TO_POINTER (address))));
              g_hash_table_remove (oracle, GSIZE_TO_POINTER (address));
            }
        }
      if (step % 997 == 0)
        assert_same (&table, oracle);
      g_assert_cmpuint (table.len, ==, g_hash_table_size (oracle));
    }
  assert_same (&table, oracle);
  /* a table that held thousands and holds few gave memory back */
  g_assert_cmpuint (table.mask + 1, <=, MAX (64, 8 * (table.len + 1)));

  g_hash_table_iter_init (&iter, oracle);
  while (g_hash_table_iter_next (&iter, &key, &value))
    {
      want[0] += GPOINTER_TO_SIZE (key);
      want[1] += GPOINTER_TO_SIZE (value);
      want[2]++;
    }
  _gcuda_address_table_clear (&table, sum_entries, sums);
  g_assert_cmpmem (sums, sizeof sums, want, sizeof want);
  g_assert_null (table.slots);
  g_assert_cmpuint (table.len, ==, 0);
}

/* What is not there: 0, an empty table, an address stolen already. */
static void
test_absent (void)
{
  GCudaAddressTable table = { 0 };
  guint64 size = 42;

  g_assert_false (_gcuda_address_table_steal (&table, 0x1000, &size));
  g_assert_false (_gcuda_address_table_steal (&table, 0, NULL));
  _gcuda_address_table_insert (&table, 0x1000, 7);
  g_assert_false (_gcuda_address_table_steal (&table, 0, &size));
  g_assert_false (_gcuda_address_table_steal (&table, 0x2000, &size));
  g_assert_cmpuint (size, ==, 42);
  g_assert_true (_gcuda_address_table_steal (&table, 0x1000, &size));
  g_assert_cmpuint (size, ==, 7);
  g_assert_false (_gcuda_address_table_steal (&table, 0x1000, NULL));
  _gcuda_address_table_clear (&table, NULL, NULL);
  _gcuda_address_table_clear (&table, NULL, NULL);  /* twice is harmless */
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/address-table/random", test_random);
  g_test_add_func ("/address-table/absent", test_absent);
  return g_test_run ();
}
