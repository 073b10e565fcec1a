// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Mock kernel: pinning user pages and vmap.
 *
 * Local mm: the pages are the caller's own memory; pinning checks (by
 * touching each page under the fault guard) that the range is mapped, and
 * writable for FOLL_WRITE.
 *
 * Remote mm (npud's clients): npud runs as root and must never reach a
 * client's memory with its own rights. The range must lie in one shared
 * mapping of a file the client still holds open: we duplicate the client's
 * own descriptor with pidfd_getfd() (so we get the client's access mode: a
 * file it opened O_RDONLY cannot be mapped shared-writable), check that it
 * is the very inode /proc/PID/maps shows at that address (before and after
 * the duplication), that it is sealed against shrinking (F_SEAL_SHRINK, so
 * the client cannot truncate pages away under us; only memfds can be
 * sealed) and that the file covers the pinned range, then map that file
 * range shared into the daemon and fault every page in, as
 * pin_user_pages() does. Anything else is refused: -EFAULT (no such file,
 * not shared, beyond its end, no write access), -EINVAL (not sealed). We
 * never open /proc/PID/map_files or /proc/PID/fd/N: reading maps and
 * stat() of the fd entries tells us only where to look.
 * Either way the pages of one pin are contiguous in our address space, so
 * vmap() of them is simply their address.
 *
 * Faults on remote pins: a client cannot shrink a sealed file, but some
 * memory can still fail under us (a hugetlb file whose hole was punched
 * and whose huge page went elsewhere). On a real kernel the pinned pages
 * stay the driver's and the only way to lose one is a memory error, which
 * the kernel reports as PageHWPoison(). The mock does the same: a SIGBUS
 * or SIGSEGV on a remote pin mapping (mock_pin_fault(), called by the
 * fault handler of uaccess.c) maps a zero page over the faulting page,
 * marks that struct page hardware-poisoned and lets the access complete;
 * the driver checks PageHWPoison() after it touched client-shared memory
 * and fails that ring or copy with -EFAULT. That costs nothing on the fast
 * path (a flag test), unlike a guarded accessor around every ring access.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <linux/kernel.h>
#include <linux/bug.h>
#include <linux/list.h>
#include <linux/mm.h>
#include <linux/rbtree.h>
#include <linux/sched.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>

#include "internal.h"

#ifndef SYS_pidfd_getfd
#define SYS_pidfd_getfd 438
#endif
#ifndef F_GET_SEALS
#define F_GET_SEALS 1034
#endif
#ifndef F_SEAL_SHRINK
#define F_SEAL_SHRINK 0x0002
#endif

/*
 * Remote pin mappings, for the fault handler. Taken in the handler of a
 * synchronous fault: the faulting thread never holds it there (nothing
 * touches a pin mapping under it).
 */
static pthread_mutex_t remote_pins_lock = PTHREAD_MUTEX_INITIALIZER; /* Protects: remote_pins */
static LIST_HEAD(remote_pins);
/* Set for good by the first remote pin: see mock_pin_remote_seen(). */
static bool remote_pins_seen;

static struct mock_page_owner *pin_owner_alloc(unsigned long nr,
					       enum mock_page_owner_kind kind,
					       char *base)
{
	struct mock_page_owner *o;
	unsigned long i;

	o = calloc(1, sizeof(*o) + nr * sizeof(struct page));
	if (!o)
		return NULL;
	o->kind = kind;
	o->nr_pages = nr;
	INIT_LIST_HEAD(&o->pin_link);
	atomic_long_set(&o->pinned, nr);
	for (i = 0; i < nr; i++) {
		o->pages[i].virtual = base + i * PAGE_SIZE;
		o->pages[i].mock_owner = o;
	}
	return o;
}

/**
 * mock_pin_fault() - a SIGBUS/SIGSEGV at @addr: poison it if it is a pin's
 * @addr: the faulting address
 *
 * Return: true when @addr is in a remote pin mapping: a zero page now
 * stands in for the page, which is marked PageHWPoison(), and the access
 * can be retried; false for any other address.
 */
bool mock_pin_fault(unsigned long addr)
{
	struct mock_page_owner *o;
	bool found = false;

	pthread_mutex_lock(&remote_pins_lock);
	list_for_each_entry(o, &remote_pins, pin_link) {
		unsigned long lo = (unsigned long)o->map;
		unsigned long idx;
		void *page;

		if (addr < lo || addr - lo >= o->map_len)
			continue;
		idx = (addr - lo) >> PAGE_SHIFT;
		page = (char *)o->map + (idx << PAGE_SHIFT);
		if (mmap(page, PAGE_SIZE, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) != page)
			break;
		__atomic_fetch_or(&o->pages[idx].flags, 1UL << PG_hwpoison,
				  __ATOMIC_RELEASE);
		found = true;
		break;
	}
	pthread_mutex_unlock(&remote_pins_lock);
	return found;
}

bool mock_pin_remote_seen(void)
{
	return __atomic_load_n(&remote_pins_seen, __ATOMIC_ACQUIRE);
}

/*
 * The one shared file mapping of the client that covers [addr, end), from
 * the maps file bound to its address space (mm_remote.c).
 */
static int remote_find_vma(const struct mm_struct *mm, unsigned long addr,
			   unsigned long end, struct mock_remote_vma *vma)
{
	struct mock_remote_vma v;

	if (mock_mm_remote_vma(mm, addr, &v))
		return -EFAULT;
	if (end > v.end || v.perms[3] != 's' || !v.inode)
		return -EFAULT;
	*vma = v;
	return 0;
}

/* Whether fd is the file of vma (device and inode). */
static bool remote_fd_is(int fd, const struct mock_remote_vma *vma, struct stat *st)
{
	return !fstat(fd, st) && st->st_ino == vma->inode &&
	       st->st_dev == makedev(vma->major, vma->minor);
}

/*
 * Our duplicate of the client's own descriptor of the file behind vma, or
 * -EFAULT if the client holds none. The fd numbers come from listing
 * /proc/PID/fd, and stat() of an entry (metadata, no open) skips the ones
 * that are not that inode, so we never take a reference to the client's
 * other files (a last close of those by us could have side effects); the
 * inode is checked again on the duplicate itself.
 */
static int remote_get_file(const struct mm_struct *mm,
			   const struct mock_remote_vma *vma)
{
	char path[64];
	struct dirent *de;
	int fd = -EFAULT;
	DIR *dir;

	snprintf(path, sizeof(path), "/proc/%d/fd", (int)mm->pid);
	dir = opendir(path);
	if (!dir)
		return -EFAULT;
	while (fd < 0 && (de = readdir(dir))) {
		struct stat st;
		char *endp;
		long cfd = strtol(de->d_name, &endp, 10);
		int dup;

		if (*endp || endp == de->d_name || cfd < 0 || cfd > INT_MAX)
			continue;
		snprintf(path, sizeof(path), "/proc/%d/fd/%ld", (int)mm->pid, cfd);
		if (stat(path, &st) || st.st_ino != vma->inode ||
		    st.st_dev != makedev(vma->major, vma->minor))
			continue;
		dup = syscall(SYS_pidfd_getfd, mm->pidfd, (int)cfd, 0);
		if (dup < 0)
			continue;
		if (remote_fd_is(dup, vma, &st))
			fd = dup;
		else
			close(dup);
	}
	closedir(dir);
	return fd;
}

/*
 * Check the client's file for a pin of [off, off + len): sealed against
 * shrinking, and long enough.
 */
static int remote_check_file(int fd, const struct mock_remote_vma *vma,
			     unsigned long off, unsigned long len)
{
	struct stat st;
	unsigned long end;
	int seals;

	if (!remote_fd_is(fd, vma, &st))
		return -EFAULT;
	seals = fcntl(fd, F_GET_SEALS);
	if (seals < 0 || !(seals & F_SEAL_SHRINK))
		return -EINVAL;
	if (check_add_overflow(off, len, &end) || end > (unsigned long)st.st_size)
		return -EFAULT;
	return 0;
}

static int pin_remote(const struct mm_struct *mm, unsigned long start,
		      unsigned long nr, unsigned int gup_flags,
		      struct page **pages)
{
	unsigned long len = nr << PAGE_SHIFT, off;
	bool write = gup_flags & FOLL_WRITE;
	struct mock_remote_vma vma, again;
	struct mock_page_owner *o;
	int fd, prot, ret;
	void *map;

	ret = remote_find_vma(mm, start, start + len, &vma);
	if (ret)
		return ret;
	if ((write && vma.perms[1] != 'w') || vma.perms[0] != 'r')
		return -EFAULT;
	off = vma.offset + (start - vma.start);
	fd = remote_get_file(mm, &vma);
	if (fd < 0)
		return fd;
	ret = remote_check_file(fd, &vma, off, len);
	if (ret)
		goto out_close;
	/* Still that file at that address, now that we hold it. */
	ret = remote_find_vma(mm, start, start + len, &again);
	if (ret || again.inode != vma.inode || again.major != vma.major ||
	    again.minor != vma.minor ||
	    again.offset + (start - again.start) != off) {
		ret = -EFAULT;
		goto out_close;
	}
	/* The client's own access mode decides: no write to a read-only open. */
	prot = PROT_READ | (write ? PROT_WRITE : 0);
	map = mmap(NULL, len, prot, MAP_SHARED, fd, off);
	ret = map == MAP_FAILED ? -EFAULT : 0;
	close(fd);
	if (ret)
		return ret;
	/* Fault every page in now, as pin_user_pages() does. */
	if (mock_guarded_probe((unsigned long)map, len, write)) {
		munmap(map, len);
		return -EFAULT;
	}

	o = pin_owner_alloc(nr, MOCK_PAGES_PIN_REMOTE, map);
	if (!o) {
		munmap(map, len);
		return -ENOMEM;
	}
	o->map = map;
	o->map_len = len;
	pthread_mutex_lock(&remote_pins_lock);
	list_add(&o->pin_link, &remote_pins);
	pthread_mutex_unlock(&remote_pins_lock);
	__atomic_store_n(&remote_pins_seen, true, __ATOMIC_RELEASE);
	for (unsigned long i = 0; i < nr; i++)
		pages[i] = &o->pages[i];
	return 0;

out_close:
	close(fd);
	return ret;
}

static int pin_local(unsigned long start, unsigned long nr,
		     unsigned int gup_flags, struct page **pages)
{
	struct mock_page_owner *o;
	int ret;

	ret = mock_guarded_probe(start, nr << PAGE_SHIFT,
				 gup_flags & FOLL_WRITE);
	if (ret)
		return ret;
	o = pin_owner_alloc(nr, MOCK_PAGES_PIN_LOCAL, (char *)start);
	if (!o)
		return -ENOMEM;
	for (unsigned long i = 0; i < nr; i++)
		pages[i] = &o->pages[i];
	return 0;
}

int pin_user_pages_fast(unsigned long start, int nr_pages,
			unsigned int gup_flags, struct page **pages)
{
	struct mm_struct *mm = current->mm;
	unsigned long len;
	int ret;

	if (nr_pages <= 0)
		return nr_pages ? -EINVAL : 0;
	if (mock_inject_pin_failure())
		return -EFAULT;
	start &= PAGE_MASK;
	len = (unsigned long)nr_pages << PAGE_SHIFT;
	if (!access_ok((void __user *)start, len) || !mm)
		return -EFAULT;
	if (mm->kind == MOCK_MM_REMOTE)
		ret = pin_remote(mm, start, nr_pages, gup_flags, pages);
	else
		ret = pin_local(start, nr_pages, gup_flags, pages);
	if (ret)
		return ret;
	mock_live_add(&mock_live.pinned_pages, nr_pages);
	return nr_pages;
}

void unpin_user_page(struct page *page)
{
	struct mock_page_owner *o = page->mock_owner;

	if (!o || (o->kind != MOCK_PAGES_PIN_LOCAL &&
		   o->kind != MOCK_PAGES_PIN_REMOTE)) {
		WARN(1, "unpin_user_page of a page that was not pinned\n");
		return;
	}
	mock_live_add(&mock_live.pinned_pages, -1);
	if (atomic_long_dec_and_test(&o->pinned)) {
		if (o->map) {
			pthread_mutex_lock(&remote_pins_lock);
			list_del(&o->pin_link);
			pthread_mutex_unlock(&remote_pins_lock);
			munmap(o->map, o->map_len);
		}
		free(o);
	}
}

void unpin_user_pages(struct page **pages, unsigned long npages)
{
	unsigned long i;

	for (i = 0; i < npages; i++)
		unpin_user_page(pages[i]);
}

void unpin_user_pages_dirty_lock(struct page **pages, unsigned long npages,
				 bool make_dirty)
{
	(void)make_dirty;
	unpin_user_pages(pages, npages);
}

/*
 * vmap
 *
 * The live areas are kept in an rbtree by address, so vunmap() finds its
 * area in O(log n) however many rings and registrations are live (a list
 * made releasing n of them O(n^2)). Two pins of the same memory give the
 * same address here (unlike in the kernel), so equal keys are allowed and
 * vunmap() removes any one of them.
 */

struct vmap_area {
	struct rb_node node;	/* in vmap_root */
	const void *addr;
	unsigned int count;
};

static pthread_mutex_t vmap_lock = PTHREAD_MUTEX_INITIALIZER; /* Protects: vmap_root */
static struct rb_root vmap_root = RB_ROOT;

static void vmap_insert(struct vmap_area *va)
{
	struct rb_node **link = &vmap_root.rb_node, *parent = NULL;

	while (*link) {
		const struct vmap_area *cur = rb_entry(*link, struct vmap_area, node);

		parent = *link;
		if ((uintptr_t)va->addr < (uintptr_t)cur->addr)
			link = &parent->rb_left;
		else
			link = &parent->rb_right;
	}
	rb_link_node(&va->node, parent, link);
	rb_insert_color(&va->node, &vmap_root);
}

static struct vmap_area *vmap_find(const void *addr)
{
	struct rb_node *n = vmap_root.rb_node;

	while (n) {
		struct vmap_area *va = rb_entry(n, struct vmap_area, node);

		if ((uintptr_t)addr < (uintptr_t)va->addr)
			n = n->rb_left;
		else if ((uintptr_t)addr > (uintptr_t)va->addr)
			n = n->rb_right;
		else
			return va;
	}
	return NULL;
}

void *vmap(struct page **pages, unsigned int count, unsigned long flags,
	   pgprot_t prot)
{
	struct vmap_area *va;
	char *base;
	unsigned int i;

	(void)flags;
	(void)prot;
	if (!count)
		return NULL;
	if (mock_inject_alloc_failure())
		return NULL;
	base = page_address(pages[0]);
	for (i = 1; i < count; i++) {
		if (page_address(pages[i]) != base + (size_t)i * PAGE_SIZE) {
			WARN(1, "vmap: the mock maps only contiguous pages\n");
			return NULL;
		}
	}
	va = malloc(sizeof(*va));
	if (!va)
		return NULL;
	va->addr = base;
	va->count = count;
	pthread_mutex_lock(&vmap_lock);
	vmap_insert(va);
	pthread_mutex_unlock(&vmap_lock);
	mock_live_add(&mock_live.vmaps, 1);
	return base;
}

void vunmap(const void *addr)
{
	struct vmap_area *found;

	if (!addr)
		return;
	pthread_mutex_lock(&vmap_lock);
	found = vmap_find(addr);
	if (found)
		rb_erase(&found->node, &vmap_root);
	pthread_mutex_unlock(&vmap_lock);
	if (!found) {
		WARN(1, "vunmap(%p): not a vmap address\n", addr);
		return;
	}
	mock_live_add(&mock_live.vmaps, -1);
	free(found);
}
