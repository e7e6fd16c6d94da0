/*
 * top.h: splice-top's own, built into it alone (as bench/ into
 * splice-bench): scan.c reads what /proc says of the processes and the
 * pipes between them, view.c orders them into chains and says what it
 * sees, on a screen, in batch lines or in key=value records.
 *
 *   scan.c   a sample: processes, their pipe ends and files, the pipes'
 *            fill, rates against the sample before
 *   view.c   chains writer to reader, the verdict, the three outputs
 */
#ifndef SPLICE_TOOLS_TOP_H
#define SPLICE_TOOLS_TOP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

/* Which processes to watch. */
enum top_mode {
	WATCH_PIDS,		/* the pipelines of the given pids */
	WATCH_PGID,		/* the pipelines of a process group (a shell job) */
	WATCH_SESSION,		/* every pipeline of the caller's session */
	WATCH_ALL,		/* every pipeline splice-top may see */
};

struct top_opts {
	enum top_mode mode;
	pid_t *pids;		/* WATCH_PIDS: the operands */
	size_t npids;
	pid_t pgid;		/* WATCH_PGID */
};

/* A descriptor of a process that is no pipe: a file, a socket, a device. */
struct top_file {
	int fd;
	char kind;		/* 'f' a regular file, 's' a socket, 'c' a device */
	char mode;		/* 'r', 'w' or 'u' (both), from fdinfo's flags */
	uint64_t pos, size;	/* a regular file's offset and size */
	double rate;		/* its offset's bytes a second, -1 not known */
	char name[256];		/* its path, or "socket" */
};

/* A process's end of a pipe: the pipe's inode, and which way. */
struct top_end {
	uint64_t inode;
	int fd;			/* the first descriptor that holds it */
	bool reads, writes;
	bool std;		/* read at 0, or written at 1 or 2: a pipeline's pipe */
};

struct top_proc {
	pid_t pid, ppid, pgrp, sid;
	unsigned long long start;	/* since boot, in clock ticks: pid reuse */
	char comm[32];
	char state;
	uint64_t ticks;		/* user + system CPU, in clock ticks */
	bool io_known;		/* /proc/PID/io could be read */
	uint64_t rchar, wchar;
	double cpu, read_rate, write_rate;	/* -1 until a sample before */
	bool fds_read;		/* a candidate: its descriptors were read */
	bool watched;		/* in a watched pipeline */
	bool stage;		/* shown: a pipe's writer or reader, or named */
	struct top_end *ends;
	size_t nends;
	struct top_file *files;
	size_t nfiles;
	size_t order;		/* view.c: its place on the screen */
};

struct top_pipe {
	uint64_t inode;
	size_t writer, reader;	/* indexes into procs, or NO_PROC */
	size_t writers, readers;	/* how many watched processes hold each end */
	long bytes, capacity;	/* FIONREAD, F_GETPIPE_SZ; -1 not read */
	double fill_avg;	/* fill in [0, 1], averaged over the samples */
	unsigned int full_idle;	/* samples full while its reader did nothing */
	bool linked;		/* a watched process holds it at a standard descriptor */
};

#define NO_PROC ((size_t)-1)

struct top_sample {
	double when;		/* now_seconds(), for the rates */
	double wall;		/* the time of day, in seconds since the epoch */
	struct top_proc *procs;
	size_t nprocs;
	struct top_pipe *pipes;
	size_t npipes;
	size_t watched;		/* processes in watched pipelines */
	size_t stages;		/* of them shown: not a shell that only waits */
	size_t group_readable;	/* WATCH_PGID: members whose descriptors were read */
};

/*
 * Takes a sample: every process of /proc the mode may concern, the
 * descriptors of those it watches, each pipe's fill (opened read-only and
 * nonblocking through /proc/PID/fd for FIONREAD and F_GETPIPE_SZ alone,
 * only where a watched process reads it), rates and averages against
 * prev (NULL: the first).  -1 with errno when /proc cannot be read.
 */
int top_sample_take(struct top_sample *s, const struct top_opts *o,
    const struct top_sample *prev);
void top_sample_free(struct top_sample *s);

/*
 * Whether pid may be watched: 0; -1 with errno ESRCH (no such process),
 * ECHILD (a thread's id, not a process's) or EACCES (its descriptors may
 * not be read: another user's).
 */
int top_check_pid(pid_t pid);

/* The views: what a refresh prints. */
enum top_view {
	VIEW_SCREEN,		/* a terminal's screen, redrawn */
	VIEW_BATCH,		/* the same lines, one frame after another */
	VIEW_RECORDS,		/* key=value records, numbers exact */
};

/*
 * The lines of a frame, at most rows of them (0: all), each at most width
 * columns (0: as long as they are), into out (open_memstream's), in view's
 * form; delay the seconds between refreshes, for the header.
 */
void top_render(FILE *out, struct top_sample *s, enum top_view view, int width, int rows,
    double delay);

#endif
