/* gcuda-plt-private.c: points one loaded library's calls of a C library
 * function at another function
 *
 * A library calls a function of another one through a slot the dynamic
 * loader fills in: a jump slot (through the PLT) or a GOT entry (code built
 * with -fno-plt). Writing our function's address there changes what that
 * library alone calls. GCuda does it for NVRTC, whose front end changes the
 * whole process's signal dispositions (gcuda-nvrtc-private.c says why).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#define _GNU_SOURCE 1  /* dlinfo, dl_iterate_phdr */

#include "config.h"

#include "gcuda-plt-private.h"

#if defined (__linux__) && defined (__GLIBC__) && (defined (__x86_64__) || defined (__aarch64__))

#include <dlfcn.h>
#include <elf.h>
#include <link.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#if defined (__x86_64__)
#define RELOC_JUMP_SLOT R_X86_64_JUMP_SLOT
#define RELOC_GLOB_DAT  R_X86_64_GLOB_DAT
#else
#define RELOC_JUMP_SLOT R_AARCH64_JUMP_SLOT
#define RELOC_GLOB_DAT  R_AARCH64_GLOB_DAT
#endif

/* Where the library lies: its load bias, the pages glibc made read-only
 * after relocating (RELRO) and its segments, to know how a slot may be
 * written. */
typedef struct {
  uintptr_t base;
  const char *name;
  uintptr_t page;  /* the page size */
  gboolean found;
  uintptr_t relro_start;
  uintptr_t relro_end;
  const ElfW(Phdr) *phdr;
  size_t phnum;
} Layout;

static int
find_layout (struct dl_phdr_info *info,
             size_t               size,
             void                *data)
{
  Layout *layout = data;

  if (info->dlpi_addr != layout->base || g_strcmp0 (info->dlpi_name, layout->name) != 0)
    return 0;
  layout->found = TRUE;
  layout->phdr = info->dlpi_phdr;
  layout->phnum = info->dlpi_phnum;
  for (size_t i = 0; i < info->dlpi_phnum; i++)
    if (info->dlpi_phdr[i].p_type == PT_GNU_RELRO)
      {
        uintptr_t start = info->dlpi_addr + info->dlpi_phdr[i].p_vaddr;

        /* the pages glibc's _dl_protect_relro() makes read-only: a page
         * the range ends inside stays writable */
        layout->relro_start = start & ~(layout->page - 1);
        layout->relro_end = (start + info->dlpi_phdr[i].p_memsz) & ~(layout->page - 1);
      }
  return 1;
}

/* Whether the segment holding [@addr, @addr + size) is writable. */
static gboolean
in_writable_segment (const Layout *layout,
                     uintptr_t     addr)
{
  for (size_t i = 0; i < layout->phnum; i++)
    {
      const ElfW(Phdr) *ph = &layout->phdr[i];
      uintptr_t start = layout->base + ph->p_vaddr;

      if (ph->p_type == PT_LOAD && (ph->p_flags & PF_W) && addr >= start &&
          addr + sizeof (void *) <= start + ph->p_memsz)
        return TRUE;
    }
  return FALSE;
}

static gboolean
write_slot (const Layout *layout,
            void        **slot,
            gpointer      value)
{
  uintptr_t addr = (uintptr_t) slot;

  if (addr % sizeof (void *) != 0)
    return FALSE;
  if (addr >= layout->relro_start && addr < layout->relro_end)
    {
      void *start = (void *) (addr & ~(layout->page - 1));

      if (mprotect (start, layout->page, PROT_READ | PROT_WRITE) != 0)
        return FALSE;
      /* one aligned store: a thread calling through the slot meanwhile
       * gets the old function or the new one */
      __atomic_store_n (slot, value, __ATOMIC_RELEASE);
      mprotect (start, layout->page, PROT_READ);
      return TRUE;
    }
  if (!in_writable_segment (layout, addr))
    return FALSE;
  __atomic_store_n (slot, value, __ATOMIC_RELEASE);
  return TRUE;
}

/* glibc relocates the dynamic section's addresses in place (on these two
 * architectures); an address below the load bias is one it did not. */
static const void *
dynamic_address (const Layout *layout,
                 ElfW(Addr)    ptr)
{
  return (const void *) (ptr >= layout->base ? ptr : ptr + layout->base);
}

guint
_gcuda_plt_redirect (void        *handle,
                     const char  *symbol,
                     gpointer     replacement,
                     const char **why)
{
  struct link_map *map = NULL;
  Layout layout = { 0 };
  const ElfW(Sym) *symtab = NULL;
  const char *strtab = NULL;
  const ElfW(Rela) *tables[2] = { NULL, NULL };
  size_t sizes[2] = { 0, 0 };
  ElfW(Sxword) plt_kind = DT_RELA;
  guint rewritten = 0;
  gboolean refused = FALSE;

  *why = NULL;
  if (dlinfo (handle, RTLD_DI_LINKMAP, &map) != 0 || map == NULL)
    {
      *why = "the loader does not describe the library";
      return 0;
    }
  layout.base = map->l_addr;
  layout.name = map->l_name;
  layout.page = (uintptr_t) sysconf (_SC_PAGESIZE);
  dl_iterate_phdr (find_layout, &layout);
  if (!layout.found)
    {
      *why = "the library's segments were not found";
      return 0;
    }

  for (const ElfW(Dyn) *d = map->l_ld; d->d_tag != DT_NULL; d++)
    switch (d->d_tag)
      {
      case DT_SYMTAB:
        symtab = dynamic_address (&layout, d->d_un.d_ptr);
        break;
      case DT_STRTAB:
        strtab = dynamic_address (&layout, d->d_un.d_ptr);
        break;
      case DT_JMPREL:
        tables[0] = dynamic_address (&layout, d->d_un.d_ptr);
        break;
      case DT_PLTRELSZ:
        sizes[0] = d->d_un.d_val;
        break;
      case DT_PLTREL:
        plt_kind = (ElfW(Sxword)) d->d_un.d_val;
        break;
      case DT_RELA:
        tables[1] = dynamic_address (&layout, d->d_un.d_ptr);
        break;
      case DT_RELASZ:
        sizes[1] = d->d_un.d_val;
        break;
      default:
        break;
      }
  if (symtab == NULL || strtab == NULL)
    {
      *why = "the library has no dynamic symbol table";
      return 0;
    }
  if (plt_kind != DT_RELA)
    {
      *why = "the library's jump slots are not in the expected format";
      return 0;
    }

  for (guint t = 0; t < G_N_ELEMENTS (tables); t++)
    for (size_t i = 0; tables[t] != NULL && i < sizes[t] / sizeof (ElfW(Rela)); i++)
      {
        const ElfW(Rela) *rel = &tables[t][i];
        unsigned long type = ELF64_R_TYPE (rel->r_info);
        unsigned long index = ELF64_R_SYM (rel->r_info);

        if ((type != RELOC_JUMP_SLOT && type != RELOC_GLOB_DAT) || index == 0 ||
            strcmp (strtab + symtab[index].st_name, symbol) != 0)
          continue;
        if (write_slot (&layout, (void **) (layout.base + rel->r_offset), replacement))
          rewritten++;
        else
          refused = TRUE;
      }
  if (rewritten == 0)
    *why = refused ? "a slot could not be written" : "the library does not import the function";
  return rewritten;
}

#else

guint
_gcuda_plt_redirect (void        *handle,
                     const char  *symbol,
                     gpointer     replacement,
                     const char **why)
{
  *why = "not supported on this system";
  return 0;
}

#endif
