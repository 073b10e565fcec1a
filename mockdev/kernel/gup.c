// SPDX-License-Identifier: GPL-2.0
/*
 * Mock kernel: pinning user pages and vmap.
 *
 * Local mm: the pages are the caller's own memory; pinning checks (by
 * touching each page under the fault guard) that the range is mapped, and
 * writable for FOLL_WRITE.
 * Remote mm: the range must lie in one shared file mapping of the client
 * (its memfd mapped MAP_SHARED). We get that file (pidfd_getfd of the
 * client's fd for the inode; else /proc/PID/map_files) and map the same
 * file range shared into the daemon; the pages point into that mapping,
 * which goes away with the last unpin.
 * Either way the pages of one pin are contiguous in our address space, so
 * vmap() of them is simply their address.
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
	atomic_long_set(&o->pinned, nr);
	for (i = 0; i < nr; i++) {
		o->pages[i].virtual = base + i * PAGE_SIZE;
		o->pages[i].mock_owner = o;
	}
	return o;
}

/* A mapping of the client's address space, from /proc/PID/maps. */
struct remote_vma {
	unsigned long start, end, offset;
	char perms[5];
	unsigned int major, minor;
	unsigned long inode;
};

static int remote_find_vma(pid_t pid, unsigned long addr, unsigned long end,
			   struct remote_vma *vma)
{
	char path[64], line[512];
	int ret = -EFAULT;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return -EFAULT;
	while (fgets(line, sizeof(line), f)) {
		struct remote_vma v;

		if (sscanf(line, "%lx-%lx %4s %lx %x:%x %lu", &v.start, &v.end,
			   v.perms, &v.offset, &v.major, &v.minor,
			   &v.inode) != 7)
			continue;
		if (addr < v.start || addr >= v.end)
			continue;
		/* One shared file mapping must cover all of it. */
		if (end <= v.end && v.perms[3] == 's' && v.inode) {
			*vma = v;
			ret = 0;
		}
		break;
	}
	fclose(f);
	return ret;
}

/* A descriptor of ours for the file behind vma, or -errno. */
static int remote_get_file(const struct mm_struct *mm,
			   const struct remote_vma *vma, bool write)
{
	char path[128];
	struct dirent *de;
	int fd = -1;
	DIR *dir;

	snprintf(path, sizeof(path), "/proc/%d/fd", (int)mm->pid);
	dir = opendir(path);
	while (dir && fd < 0 && (de = readdir(dir))) {
		struct stat st;
		char *endp;
		long cfd = strtol(de->d_name, &endp, 10);

		if (*endp || endp == de->d_name)
			continue;
		snprintf(path, sizeof(path), "/proc/%d/fd/%ld", (int)mm->pid,
			 cfd);
		if (stat(path, &st) || st.st_ino != vma->inode ||
		    st.st_dev != makedev(vma->major, vma->minor))
			continue;
		fd = syscall(SYS_pidfd_getfd, mm->pidfd, (int)cfd, 0);
	}
	if (dir)
		closedir(dir);
	if (fd >= 0)
		return fd;

	/* The client may have closed its fd: the mapping still names the file. */
	snprintf(path, sizeof(path), "/proc/%d/map_files/%lx-%lx",
		 (int)mm->pid, vma->start, vma->end);
	fd = open(path, (write ? O_RDWR : O_RDONLY) | O_CLOEXEC);
	return fd >= 0 ? fd : -EFAULT;
}

static int pin_remote(const struct mm_struct *mm, unsigned long start,
		      unsigned long nr, unsigned int gup_flags,
		      struct page **pages)
{
	unsigned long len = nr << PAGE_SHIFT;
	bool write = gup_flags & FOLL_WRITE;
	struct mock_page_owner *o;
	struct remote_vma vma;
	int fd, prot, ret;
	void *map;

	ret = remote_find_vma(mm->pid, start, start + len, &vma);
	if (ret)
		return ret;
	if ((write && vma.perms[1] != 'w') || vma.perms[0] != 'r')
		return -EFAULT;
	fd = remote_get_file(mm, &vma, vma.perms[1] == 'w');
	if (fd < 0)
		return fd;
	prot = PROT_READ | (vma.perms[1] == 'w' ? PROT_WRITE : 0);
	map = mmap(NULL, len, prot, MAP_SHARED, fd,
		   vma.offset + (start - vma.start));
	if (map == MAP_FAILED && prot & PROT_WRITE && !write) {
		/* Opened read-only: a read pin can live with that. */
		map = mmap(NULL, len, PROT_READ, MAP_SHARED, fd,
			   vma.offset + (start - vma.start));
	}
	close(fd);
	if (map == MAP_FAILED)
		return -EFAULT;

	o = pin_owner_alloc(nr, MOCK_PAGES_PIN_REMOTE, map);
	if (!o) {
		munmap(map, len);
		return -ENOMEM;
	}
	o->map = map;
	o->map_len = len;
	for (unsigned long i = 0; i < nr; i++)
		pages[i] = &o->pages[i];
	return 0;
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
		if (o->map)
			munmap(o->map, o->map_len);
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
