/*
 * scan.c: a sample of what /proc says.  Every process's stat (its session
 * and group say which may concern the mode), then the descriptors of those
 * that may: /proc/PID/fd's links name the pipes ("pipe:[INODE]"), fdinfo's
 * flags say which end.  A pipe is measured through a watched reader's
 * descriptor, opened read-only and nonblocking, for FIONREAD and
 * F_GETPIPE_SZ, and closed at once: nothing is read, no writer made, and a
 * pipe without a reader gets none from splice-top.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "splice.h"
#include "top/top.h"

/* Most files kept of one process: a program may hold hundreds. */
#define FILES_MAX 6
/* Most sessions watched at once: those of the named pids. */
#define SESSIONS_MAX 64
/* The weight of the newest fill in a pipe's average. */
#define FILL_WEIGHT 0.3

static int proc_dir = -1;

/* Reads /proc/REL into buf (NUL-terminated): its length, or -1 with errno. */
static ssize_t
read_proc(const char *rel, char *buf, size_t size)
{
	int fd;
	ssize_t n;

	fd = openat(proc_dir, rel, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = read(fd, buf, size - 1);
	(void)close(fd);
	if (n < 0)
		return -1;
	buf[n] = '\0';
	return n;
}

/* The number after "KEY" in text, or 0. */
static uint64_t
field_after(const char *text, const char *key)
{
	const char *p = strstr(text, key);

	return p ? strtoull(p + strlen(key), NULL, 10) : 0;
}

/* The numbers of text, space-separated, into f (at most 20): how many. */
static int
stat_fields(const char *text, long long f[20])
{
	char *end;
	int n;

	for (n = 0; n < 20; n++) {
		f[n] = strtoll(text, &end, 10);
		if (end == text)
			break;
		text = end;
	}
	return n;
}

/*
 * The descriptors of every process's /proc/PID/stat, kept open from one
 * sample to the next, in pid order: a pread(2) of one costs half of an
 * open, a read and a close (5000 processes: 29 ms against 59).  Past
 * stat_fds_max (the descriptors splice-top may hold) a stat is opened
 * and closed each time.
 */
struct stat_fd {
	pid_t pid;
	int fd;
};
static struct stat_fd *stat_fds, *stat_fds_next;
static size_t n_stat_fds, n_stat_fds_next, stat_fds_cap, stat_fds_max;

/* The soft limit of descriptors raised to the hard one; what the cache may hold. */
static void
stat_fds_init(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) < 0)
		return;
	if (rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		(void)setrlimit(RLIMIT_NOFILE, &rl);
		(void)getrlimit(RLIMIT_NOFILE, &rl);
	}
	/* Room for the fd tables, fdinfo, io and the pipes a sample opens. */
	stat_fds_max = rl.rlim_cur > 256 ? (size_t)(rl.rlim_cur - 128) : 0;
	if (stat_fds_max > 1 << 20)
		stat_fds_max = 1 << 20;
}

/*
 * pid's stat into buf: through its kept descriptor (*kept, advanced past
 * the pids gone before it, their descriptors closed), a new one kept, or
 * an open of its own.  The length, or -1 when the process is gone.
 */
static ssize_t
stat_text(pid_t pid, char *buf, size_t size, size_t *kept)
{
	char rel[32];
	ssize_t n = -1;
	int fd = -1;

	while (*kept < n_stat_fds && stat_fds[*kept].pid < pid)
		(void)close(stat_fds[(*kept)++].fd);
	if (*kept < n_stat_fds && stat_fds[*kept].pid == pid) {
		fd = stat_fds[(*kept)++].fd;
		n = pread(fd, buf, size - 1, 0);
		if (n <= 0) {
			/* Gone, and its pid taken again since: the new one's. */
			(void)close(fd);
			fd = -1;
		}
	}
	if (fd < 0) {
		snprintf(rel, sizeof(rel), "%d/stat", (int)pid);
		fd = openat(proc_dir, rel, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			return -1;
		n = pread(fd, buf, size - 1, 0);
	}
	if (n <= 0 || n_stat_fds_next >= stat_fds_max || n_stat_fds_next >= stat_fds_cap) {
		(void)close(fd);
		if (n <= 0)
			return -1;
	} else
		stat_fds_next[n_stat_fds_next++] = (struct stat_fd){ pid, fd };
	buf[n] = '\0';
	return n;
}

/* Fills p from the text of its /proc/PID/stat: 0, or -1 when it makes no sense. */
static int
read_stat(pid_t pid, char *buf, struct top_proc *p)
{
	char *name, *close_paren;
	unsigned long long utime, stime;
	long long f[20];
	size_t len;

	name = strchr(buf, '(');
	close_paren = strrchr(buf, ')');
	if (!name || !close_paren || close_paren < name)
		return -1;
	len = (size_t)(close_paren - name - 1);
	if (len >= sizeof(p->comm))
		len = sizeof(p->comm) - 1;
	memcpy(p->comm, name + 1, len);
	p->comm[len] = '\0';
	p->pid = pid;
	/*
	 * After the name: state ppid pgrp session tty tpgid flags minflt
	 * cminflt majflt cmajflt utime stime cutime cstime priority nice
	 * threads itrealvalue starttime.
	 */
	if (close_paren[1] != ' ' || !close_paren[2])
		return -1;
	p->state = close_paren[2];
	if (stat_fields(close_paren + 3, f) < 20)
		return -1;
	p->ppid = (pid_t)f[0];
	p->pgrp = (pid_t)f[1];
	p->sid = (pid_t)f[2];
	utime = (unsigned long long)f[10];
	stime = (unsigned long long)f[11];
	p->start = (unsigned long long)f[18];
	p->ticks = utime + stime;
	return 0;
}

/* /proc/PID/io's rchar and wchar, where they may be read. */
static void
read_io(struct top_proc *p)
{
	char rel[32], buf[512];

	snprintf(rel, sizeof(rel), "%d/io", (int)p->pid);
	p->io_known = read_proc(rel, buf, sizeof(buf)) > 0;
	if (p->io_known) {
		p->rchar = field_after(buf, "rchar:");
		p->wchar = field_after(buf, "wchar:");
	}
}

/* The access mode of PID's descriptor fd ('r', 'w', 'u'), and its offset. */
static char
fd_mode(pid_t pid, const char *fd, uint64_t *pos)
{
	char rel[64], buf[256], *p;
	unsigned long flags;

	snprintf(rel, sizeof(rel), "%d/fdinfo/%s", (int)pid, fd);
	if (read_proc(rel, buf, sizeof(buf)) < 0)
		return '?';
	*pos = field_after(buf, "pos:");
	p = strstr(buf, "flags:");
	if (!p)
		return '?';
	flags = strtoul(p + 6, NULL, 8);
	switch (flags & O_ACCMODE) {
	case O_RDONLY:
		return 'r';
	case O_WRONLY:
		return 'w';
	default:
		return 'u';
	}
}

/* A directory stream of fd (closed when it cannot be one), or NULL. */
static DIR *
dir_of(int fd)
{
	DIR *dir;

	if (fd < 0)
		return NULL;
	dir = fdopendir(fd);
	if (!dir)
		(void)close(fd);
	return dir;
}

/* A descriptor's number from its name in /proc/PID/fd. */
static int
fd_number(const char *name)
{
	return (int)strtol(name, NULL, 10);
}

/* Adds a pipe end, once an inode: a second descriptor of it adds its way. */
static int
add_end(struct top_proc *p, uint64_t inode, int fd, char mode)
{
	struct top_end *e;
	size_t i;

	for (i = 0; i < p->nends; i++)
		if (p->ends[i].inode == inode)
			break;
	if (i == p->nends) {
		e = realloc(p->ends, (p->nends + 1) * sizeof(*e));
		if (!e)
			return -1;
		p->ends = e;
		e[p->nends++] = (struct top_end){ .inode = inode, .fd = fd };
	}
	p->ends[i].reads |= mode == 'r' || mode == 'u';
	p->ends[i].writes |= mode == 'w' || mode == 'u';
	p->ends[i].std |= (fd == 0 && mode != 'w') || ((fd == 1 || fd == 2) && mode != 'r');
	return 0;
}

/* Whether a descriptor's link names what the view leaves out: a terminal, /proc. */
static bool
unshown(const char *link)
{
	return strncmp(link, "/dev/pts/", 9) == 0 || strncmp(link, "/dev/tty", 8) == 0 ||
	    strcmp(link, "/dev/console") == 0 || strncmp(link, "/proc/", 6) == 0 ||
	    strncmp(link, "anon_inode:", 11) == 0;
}

/* Keeps a descriptor that is no pipe: a file, a socket, a device. */
static int
add_file(struct top_proc *p, int dir, const char *name, const char *link)
{
	struct top_file f = { .fd = fd_number(name), .rate = -1 }, *grown;
	struct stat st;

	if (p->nfiles >= FILES_MAX || unshown(link))
		return 0;
	if (strncmp(link, "socket:", 7) == 0) {
		f.kind = 's';
		snprintf(f.name, sizeof(f.name), "socket");
	} else if (link[0] == '/' && fstatat(dir, name, &st, 0) == 0 &&
	    (S_ISREG(st.st_mode) || S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode))) {
		f.kind = S_ISREG(st.st_mode) ? 'f' : 'c';
		f.size = S_ISREG(st.st_mode) ? (uint64_t)st.st_size : 0;
		snprintf(f.name, sizeof(f.name), "%s", link);
	} else
		return 0;
	/* Standard error: what a program says, not what it moves; /dev/null but as output. */
	if (f.fd == 2 || (strcmp(link, "/dev/null") == 0 && f.fd != 1))
		return 0;
	f.mode = fd_mode(p->pid, name, &f.pos);
	grown = realloc(p->files, (p->nfiles + 1) * sizeof(*grown));
	if (!grown)
		return -1;
	p->files = grown;
	p->files[p->nfiles++] = f;
	return 0;
}

/*
 * The access mode old (the same process, the sample before) knew of its
 * descriptor fd on the pipe inode, or 0: a descriptor's mode never
 * changes, and fdinfo costs an open, a read and a close.
 */
static char
known_mode(const struct top_proc *old, uint64_t inode, int fd)
{
	size_t i;

	for (i = 0; old && i < old->nends; i++)
		if (old->ends[i].inode == inode && old->ends[i].fd == fd)
			break;
	/* Both ways (several descriptors merged) or neither: ask fdinfo again. */
	if (!old || i == old->nends || old->ends[i].reads == old->ends[i].writes)
		return 0;
	if (old->ends[i].reads)
		return 'r';
	return 'w';
}

/* Reads p's descriptors: its pipe ends and files.  0, or -1 with errno. */
static int
read_fds(struct top_proc *p, const struct top_proc *old)
{
	char rel[32], link[256];
	struct dirent *d;
	unsigned long long inode;
	uint64_t pos;
	ssize_t n;
	DIR *dir;
	int fd, r = 0;
	char mode;

	snprintf(rel, sizeof(rel), "%d/fd", (int)p->pid);
	dir = dir_of(openat(proc_dir, rel, O_RDONLY | O_DIRECTORY | O_CLOEXEC));
	if (!dir)
		return -1;
	fd = dirfd(dir);
	while (r == 0 && (d = readdir(dir)) != NULL) {
		if (d->d_name[0] == '.')
			continue;
		n = readlinkat(fd, d->d_name, link, sizeof(link) - 1);
		if (n < 0)
			continue;
		link[n] = '\0';
		if (strncmp(link, "pipe:[", 6) == 0) {
			inode = strtoull(link + 6, NULL, 10);
			mode = known_mode(old, inode, fd_number(d->d_name));
			if (!mode)
				mode = fd_mode(p->pid, d->d_name, &pos);
			r = add_end(p, inode, fd_number(d->d_name), mode);
		}
		else
			r = add_file(p, fd, d->d_name, link);
	}
	(void)closedir(dir);
	p->fds_read = true;
	return r;
}

int
top_check_pid(pid_t pid)
{
	char rel[32], buf[2048];
	int fd;

	if (proc_dir < 0)
		proc_dir = open("/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (proc_dir < 0)
		return -1;
	snprintf(rel, sizeof(rel), "%d/status", (int)pid);
	if (pid <= 0 || read_proc(rel, buf, sizeof(buf)) < 0) {
		errno = ESRCH;
		return -1;
	}
	/* /proc answers for a thread's id too, but lists only processes. */
	if ((pid_t)field_after(buf, "Tgid:") != pid) {
		errno = ECHILD;
		return -1;
	}
	snprintf(rel, sizeof(rel), "%d/fd", (int)pid);
	fd = openat(proc_dir, rel, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	(void)close(fd);
	return 0;
}

/* A place for n more kept descriptors in stat_fds_next. */
static int
stat_fds_room(size_t n)
{
	struct stat_fd *grown;
	size_t cap = stat_fds_cap ? stat_fds_cap : 256;

	while (cap < n)
		cap *= 2;
	if (cap == stat_fds_cap && stat_fds_next)
		return 0;
	grown = realloc(stat_fds_next, cap * sizeof(*grown));
	if (!grown)
		return -1;
	stat_fds_next = grown;
	stat_fds_cap = cap;
	grown = realloc(stat_fds, cap * sizeof(*grown));
	if (!grown)
		return -1;
	stat_fds = grown;
	return 0;
}

/* Every process of /proc, from its stat alone (/proc lists them in pid order). */
static int
read_all(struct top_sample *s)
{
	struct top_proc *grown;
	struct stat_fd *swap;
	struct dirent *d;
	size_t cap = 0, kept = 0;
	char buf[1024], *end;
	DIR *dir;
	long pid;

	dir = dir_of(dup(proc_dir));
	if (!dir)
		return -1;
	rewinddir(dir);
	n_stat_fds_next = 0;
	while ((d = readdir(dir)) != NULL) {
		pid = strtol(d->d_name, &end, 10);
		if (*end || pid <= 0 || pid == (long)getpid())
			continue;
		if (s->nprocs == cap) {
			cap = cap ? 2 * cap : 256;
			grown = realloc(s->procs, cap * sizeof(*grown));
			if (!grown || stat_fds_room(cap) < 0) {
				if (grown)
					s->procs = grown;
				(void)closedir(dir);
				return -1;
			}
			s->procs = grown;
		}
		memset(&s->procs[s->nprocs], 0, sizeof(s->procs[0]));
		if (stat_text((pid_t)pid, buf, sizeof(buf), &kept) > 0 &&
		    read_stat((pid_t)pid, buf, &s->procs[s->nprocs]) == 0)
			s->nprocs++;
	}
	(void)closedir(dir);
	/* The pids past the last listed are gone. */
	while (kept < n_stat_fds)
		(void)close(stat_fds[kept++].fd);
	swap = stat_fds;
	stat_fds = stat_fds_next;
	stat_fds_next = swap;
	n_stat_fds = n_stat_fds_next;
	return 0;
}

/*
 * The sessions the mode concerns, into sids (at most max): those of the
 * named pids, of the group's members, or the caller's.  How many, or -1:
 * every session (WATCH_ALL).
 */
static int
sessions(const struct top_sample *s, const struct top_opts *o, pid_t *sids, int max)
{
	int n = 0, k;
	size_t i, j;

	if (o->mode == WATCH_ALL)
		return -1;
	if (o->mode == WATCH_SESSION) {
		sids[0] = getsid(0);
		return 1;
	}
	for (i = 0; i < s->nprocs; i++) {
		const struct top_proc *p = &s->procs[i];
		bool named = o->mode == WATCH_PGID && p->pgrp == o->pgid;

		for (j = 0; !named && j < o->npids; j++)
			named = o->mode == WATCH_PIDS && o->pids[j] == p->pid;
		for (k = 0; named && k < n; k++)
			if (sids[k] == p->sid)
				named = false;
		if (named && n < max)
			sids[n++] = p->sid;
	}
	return n;
}

/* The index of pid among s's processes (in pid order, as /proc lists them), or NO_PROC. */
static size_t
index_of(const struct top_sample *s, pid_t pid)
{
	size_t lo = 0, hi = s ? s->nprocs : 0, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (s->procs[mid].pid < pid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < (s ? s->nprocs : 0) && s->procs[lo].pid == pid ? lo : NO_PROC;
}

/* The process of pid and start time in prev, or NULL. */
static const struct top_proc *
find_proc(const struct top_sample *prev, pid_t pid, unsigned long long start)
{
	size_t i = index_of(prev, pid);

	return i != NO_PROC && prev->procs[i].start == start ? &prev->procs[i] : NULL;
}

/* Whether the mode, or the sample before, names p as a start of a pipeline. */
static bool
is_seed(const struct top_proc *p, const struct top_opts *o, const struct top_sample *prev)
{
	const struct top_proc *old = find_proc(prev, p->pid, p->start);
	size_t j;

	if (old && old->watched)
		return true;
	switch (o->mode) {
	case WATCH_PIDS:
		for (j = 0; j < o->npids; j++)
			if (o->pids[j] == p->pid)
				return true;
		return false;
	case WATCH_PGID:
		return p->pgrp == o->pgid;
	default:
		return p->nends > 0;
	}
}

/*
 * Whether a and b hold ends of one pipe, a writing or reading, b the other
 * way, and one of them at a standard descriptor: a pipe that every process
 * of a session inherited (a job server's, a runner's) joins no pipeline.
 */
static bool
joined(const struct top_proc *a, const struct top_proc *b)
{
	size_t i, j;

	for (i = 0; i < a->nends; i++)
		for (j = 0; j < b->nends; j++)
			if (a->ends[i].inode == b->ends[j].inode &&
			    (a->ends[i].std || b->ends[j].std) &&
			    ((a->ends[i].writes && b->ends[j].reads) ||
			    (a->ends[i].reads && b->ends[j].writes)))
				return true;
	return false;
}

/*
 * Marks the watched: the seeds, then every process joined to a watched one
 * by a pipe, until none is added.  In the session and "all" modes a seed
 * must be joined to another process: a lone pipe end is no pipeline.
 */
static void
mark_watched(struct top_sample *s, const struct top_opts *o, const struct top_sample *prev)
{
	bool added = true, lone_ok = o->mode == WATCH_PIDS || o->mode == WATCH_PGID;
	size_t i, j;

	for (i = 0; i < s->nprocs; i++) {
		struct top_proc *p = &s->procs[i];

		/* A zombie holds nothing and has ended. */
		if (!p->fds_read || p->state == 'Z' || p->state == 'X' || !is_seed(p, o, prev))
			continue;
		p->watched = lone_ok;
		for (j = 0; !p->watched && p->nends && j < s->nprocs; j++)
			p->watched = j != i && s->procs[j].nends && joined(p, &s->procs[j]);
	}
	while (added) {
		added = false;
		for (i = 0; i < s->nprocs; i++) {
			if (s->procs[i].watched || !s->procs[i].nends)
				continue;
			for (j = 0; j < s->nprocs; j++)
				if (s->procs[j].watched && s->procs[j].nends &&
				    joined(&s->procs[i], &s->procs[j]))
					break;
			if (j < s->nprocs) {
				s->procs[i].watched = true;
				added = true;
			}
		}
	}
	for (i = 0; i < s->nprocs; i++)
		s->watched += s->procs[i].watched;
}

/* The pipe of inode in s, added when new; NULL when memory ran out. */
static struct top_pipe *
pipe_of(struct top_sample *s, uint64_t inode)
{
	struct top_pipe *grown;
	size_t i;

	for (i = 0; i < s->npipes; i++)
		if (s->pipes[i].inode == inode)
			return &s->pipes[i];
	grown = realloc(s->pipes, (s->npipes + 1) * sizeof(*grown));
	if (!grown)
		return NULL;
	s->pipes = grown;
	s->pipes[s->npipes] = (struct top_pipe){ .inode = inode, .writer = NO_PROC,
	    .reader = NO_PROC, .bytes = -1, .capacity = -1 };
	return &s->pipes[s->npipes++];
}

/*
 * FIONREAD and F_GETPIPE_SZ of a pipe, through its reader's descriptor:
 * opened read-only and nonblocking, closed at once.
 */
static void
measure(struct top_pipe *pp, const struct top_proc *reader, int fd)
{
	struct stat before, after;
	char path[64];
	int bytes, pfd;

	/*
	 * The descriptor may have been closed and its number given to another
	 * file since it was read: the link must still name this pipe (stat(2)
	 * follows it without opening), and so must what was opened.
	 */
	snprintf(path, sizeof(path), "/proc/%d/fd/%d", (int)reader->pid, fd);
	if (stat(path, &before) < 0 || !S_ISFIFO(before.st_mode) ||
	    (uint64_t)before.st_ino != pp->inode)
		return;
	pfd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
	if (pfd < 0)
		return;
	if (fstat(pfd, &after) == 0 && (uint64_t)after.st_ino == pp->inode &&
	    after.st_dev == before.st_dev) {
		if (ioctl(pfd, FIONREAD, &bytes) == 0 && bytes >= 0)
			pp->bytes = bytes;
		pp->capacity = fcntl(pfd, F_GETPIPE_SZ);
	}
	(void)close(pfd);
	if (pp->capacity < 0 || pp->bytes < 0) {
		pp->bytes = -1;
		pp->capacity = -1;
	}
}

/* Whether process a is an ancestor of process b (a shell that holds b's pipe). */
static bool
ancestor(const struct top_sample *s, size_t a, size_t b)
{
	int depth;

	for (depth = 0; depth < 16 && b != NO_PROC; depth++) {
		b = index_of(s, s->procs[b].ppid);
		if (b == a)
			return true;
	}
	return false;
}

/*
 * The pipes the watched hold, which process writes and which reads each
 * (of several, the one that is no ancestor of another: a shell holds the
 * ends its children use), their fill.
 */
static int
gather_pipes(struct top_sample *s, const struct top_opts *o)
{
	struct top_pipe *pp;
	size_t i, j;
	int rfd;

	for (i = 0; i < s->nprocs; i++) {
		if (!s->procs[i].watched)
			continue;
		for (j = 0; j < s->procs[i].nends; j++) {
			const struct top_end *e = &s->procs[i].ends[j];

			pp = pipe_of(s, e->inode);
			if (!pp)
				return -1;
			pp->linked |= e->std;
			if (e->writes) {
				pp->writers++;
				if (pp->writer == NO_PROC || ancestor(s, pp->writer, i))
					pp->writer = i;
			} else if (e->reads) {
				pp->readers++;
				if (pp->reader == NO_PROC || ancestor(s, pp->reader, i))
					pp->reader = i;
			}
		}
	}
	/* Only a pipeline's pipes: one some process holds at a standard descriptor. */
	for (i = j = 0; i < s->npipes; i++)
		if (s->pipes[i].linked)
			s->pipes[j++] = s->pipes[i];
	s->npipes = j;
	for (i = 0; i < s->npipes; i++) {
		pp = &s->pipes[i];
		if (pp->reader == NO_PROC)
			continue;
		rfd = -1;
		for (j = 0; j < s->procs[pp->reader].nends; j++)
			if (s->procs[pp->reader].ends[j].inode == pp->inode)
				rfd = s->procs[pp->reader].ends[j].fd;
		if (rfd >= 0)
			measure(pp, &s->procs[pp->reader], rfd);
	}
	for (i = 0; i < s->npipes; i++) {
		if (s->pipes[i].writer != NO_PROC)
			s->procs[s->pipes[i].writer].stage = true;
		if (s->pipes[i].reader != NO_PROC)
			s->procs[s->pipes[i].reader].stage = true;
	}
	for (i = 0; i < s->nprocs; i++) {
		for (j = 0; j < o->npids && s->procs[i].watched; j++)
			s->procs[i].stage |= s->procs[i].pid == o->pids[j];
		s->stages += s->procs[i].stage;
	}
	return 0;
}

/* Rates against the sample before: CPU, bytes read and written, files' offsets. */
static void
rates(struct top_sample *s, const struct top_sample *prev)
{
	double dt = prev ? s->when - prev->when : 0, tick = (double)sysconf(_SC_CLK_TCK);
	const struct top_proc *old;
	size_t i, j, k;

	for (i = 0; i < s->nprocs; i++) {
		struct top_proc *p = &s->procs[i];

		p->cpu = p->read_rate = p->write_rate = -1;
		old = p->watched && dt > 0 ? find_proc(prev, p->pid, p->start) : NULL;
		if (!old)
			continue;
		p->cpu = (double)(p->ticks - old->ticks) / tick / dt * 100;
		if (p->io_known && old->io_known) {
			p->read_rate = (double)(p->rchar - old->rchar) / dt;
			p->write_rate = (double)(p->wchar - old->wchar) / dt;
		}
		for (j = 0; j < p->nfiles; j++)
			for (k = 0; k < old->nfiles; k++)
				if (old->files[k].fd == p->files[j].fd &&
				    strcmp(old->files[k].name, p->files[j].name) == 0 &&
				    p->files[j].pos >= old->files[k].pos)
					p->files[j].rate = (double)(p->files[j].pos -
					    old->files[k].pos) / dt;
	}
}

/* Each pipe's average fill, and how long it stayed full with an idle reader. */
static void
averages(struct top_sample *s, const struct top_sample *prev)
{
	const struct top_pipe *old;
	const struct top_proc *r;
	double fill;
	size_t i, j;

	for (i = 0; i < s->npipes; i++) {
		struct top_pipe *pp = &s->pipes[i];

		if (pp->capacity <= 0)
			continue;
		fill = (double)pp->bytes / (double)pp->capacity;
		old = NULL;
		for (j = 0; prev && j < prev->npipes; j++)
			if (prev->pipes[j].inode == pp->inode && prev->pipes[j].capacity > 0)
				old = &prev->pipes[j];
		pp->fill_avg = old ? old->fill_avg * (1 - FILL_WEIGHT) + fill * FILL_WEIGHT : fill;
		r = &s->procs[pp->reader];
		if (pp->bytes >= pp->capacity && r->cpu == 0 && r->read_rate <= 0)
			pp->full_idle = (old ? old->full_idle : 0) + 1;
	}
}

int
top_sample_take(struct top_sample *s, const struct top_opts *o, const struct top_sample *prev)
{
	pid_t sids[SESSIONS_MAX];
	struct timespec wall;
	int nsids, k;
	size_t i;

	memset(s, 0, sizeof(*s));
	if (!stat_fds_max)
		stat_fds_init();
	if (proc_dir < 0)
		proc_dir = open("/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (proc_dir < 0 || read_all(s) < 0)
		return -1;
	s->when = now_seconds();
	if (clock_gettime(CLOCK_REALTIME, &wall) == 0)
		s->wall = (double)wall.tv_sec + (double)wall.tv_nsec / 1e9;
	nsids = sessions(s, o, sids, SESSIONS_MAX);
	for (i = 0; i < s->nprocs; i++) {
		struct top_proc *p = &s->procs[i];

		for (k = 0; k < nsids; k++)
			if (sids[k] == p->sid)
				break;
		if (nsids >= 0 && k == nsids)
			continue;
		if (read_fds(p, find_proc(prev, p->pid, p->start)) < 0 && errno == ENOMEM)
			return -1;
		s->group_readable += o->mode == WATCH_PGID && p->pgrp == o->pgid && p->fds_read;
	}
	mark_watched(s, o, prev);
	for (i = 0; i < s->nprocs; i++)
		if (s->procs[i].watched)
			read_io(&s->procs[i]);
	if (gather_pipes(s, o) < 0)
		return -1;
	rates(s, prev);
	averages(s, prev);
	return 0;
}

void
top_sample_free(struct top_sample *s)
{
	size_t i;

	for (i = 0; i < s->nprocs; i++) {
		free(s->procs[i].ends);
		free(s->procs[i].files);
	}
	free(s->procs);
	free(s->pipes);
	memset(s, 0, sizeof(*s));
}
