/* libdrmaa.c: pygridengine's DRMAA 1.0 C library.
 *
 * A thin forwarder (docs/drmaa.md). drmaa_init starts the agent, `python -m
 * clients.drmaa --fd 3`, with one end of a socketpair as its descriptor 3, and each
 * call that needs the session becomes one request on that channel; drmaa_exit ends the
 * agent. The agent does the work with the Python client API; no Python is embedded here.
 *
 * Framing (clients/drmaa/framing.py is the other side): a frame is a 4-byte
 * big-endian payload length, and the payload a sequence of fields, each a 4-byte
 * big-endian length and its bytes. A request's first field names the call; an answer's
 * first field is the DRMAA error code in decimal, its second the diagnosis, the rest the
 * call's results.
 *
 * Threads: one mutex guards the channel, held for one request and its answer. The calls
 * that may block (drmaa_wait, drmaa_synchronize) take a channel of their own: a fresh
 * socketpair whose one end is handed to the agent (SCM_RIGHTS) in a quick "attach"
 * request, so that a thread waiting for a job holds up no other thread's calls.
 *
 * A dead agent (it crashed, or was killed) makes every call that needs it answer
 * DRMAA_ERRNO_DRM_COMMUNICATION_FAILURE: writes use MSG_NOSIGNAL (no SIGPIPE for the
 * host program) and a read that meets the end of the channel fails the call. */
#define _GNU_SOURCE
#include "drmaa.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef PYGE_PYTHON
#define PYGE_PYTHON "python3"
#endif

/* a frame larger than this is a broken channel, not an answer */
#define MAX_FRAME (64u << 20)
/* the descriptor the agent finds its channel on */
#define AGENT_FD 3

extern char **environ;

struct pyge_strings {
    char **items;
    int count;
    int next;
};

struct drmaa_job_template_s { char id[32]; };
struct drmaa_attr_names_s { struct pyge_strings v; };
struct drmaa_attr_values_s { struct pyge_strings v; };
struct drmaa_job_ids_s { struct pyge_strings v; };

static pthread_mutex_t channel_lock = PTHREAD_MUTEX_INITIALIZER;
static int channel = -1;      /* our end of the agent's channel; -1: no session */
static pid_t agent_pid = -1;
static int agent_lost = 0;    /* the channel failed: every call answers so until exit */
static char contact_string[DRMAA_CONTACT_BUFFER];

static const char *const error_texts[] = {
    "Routine returned normally with success.",
    "Unexpected or internal DRMAA error like memory allocation, system call failure, etc.",
    "Could not contact DRM system",
    "The specified request is not processed successfully due to authorization failure.",
    "The input value for an argument is invalid.",
    "No active session",
    "failed allocating memory",
    "Initialization failed due to invalid contact string.",
    "DRMAA could not use the default contact string to connect to DRM system.",
    "No default contact string was provided or selected.",
    "Initialization failed due to failure to init DRM system.",
    "Initialization failed due to existing DRMAA session.",
    "DRM system disengagement failed.",
    "The format for the job attribute value is invalid.",
    "The value for the job attribute is invalid.",
    "The value of this attribute is conflicting with a previously set attributes.",
    "Could not pass job now to DRM system. A retry may succeed however (saturation).",
    "The DRM system rejected the job. The job will never be accepted due to DRM "
    "configuration or job template settings.",
    "The job specified by the 'jobid' does not exist.",
    "The job has not been suspended. The RESUME request will not be processed.",
    "The job has not been running, and it cannot be suspended.",
    "The job cannot be moved to a HOLD state.",
    "The job is not in a HOLD state.",
    "time-out condition",
    "no usage information was returned for the completed job",
    "no more elements are contained in the opaque string vector",
};

/* ---------------------------------------------------------------- small helpers */

static void copy_out(char *buf, size_t len, const char *text)
{
    if (buf == NULL || len == 0)
        return;
    snprintf(buf, len, "%s", text ? text : "");
}

static int fail(int code, char *diag, size_t diag_len, const char *text)
{
    copy_out(diag, diag_len, text);
    return code;
}

static void free_fields(char **fields, int count)
{
    if (fields == NULL)
        return;
    for (int i = 0; i < count; i++)
        free(fields[i]);
    free(fields);
}

static void release_strings(struct pyge_strings *v)
{
    free_fields(v->items, v->count);
    v->items = NULL;
    v->count = v->next = 0;
}

static int next_string(struct pyge_strings *v, char *value, size_t value_len)
{
    if (v == NULL || v->next >= v->count)
        return DRMAA_ERRNO_NO_MORE_ELEMENTS;
    copy_out(value, value_len, v->items[v->next++]);
    return DRMAA_ERRNO_SUCCESS;
}

/* ---------------------------------------------------------------- framing */

static int write_all(int fd, const void *data, size_t len)
{
    const char *p = data;
    while (len > 0) {
        ssize_t n = send(fd, p, len, MSG_NOSIGNAL);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return -1;
        p += n;
        len -= (size_t)n;
    }
    return 0;
}

static int read_all(int fd, void *data, size_t len)
{
    char *p = data;
    while (len > 0) {
        ssize_t n = read(fd, p, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return -1;
        p += n;
        len -= (size_t)n;
    }
    return 0;
}

static void put_u32(unsigned char *p, uint32_t v)
{
    p[0] = (unsigned char)(v >> 24); p[1] = (unsigned char)(v >> 16);
    p[2] = (unsigned char)(v >> 8); p[3] = (unsigned char)v;
}

static uint32_t get_u32(const unsigned char *p)
{
    return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | p[3];
}

/* One request's frame (4-byte length, then the fields); NULL when out of memory. */
static unsigned char *build_frame(int nargs, const char *const *args, size_t *frame_len)
{
    size_t total = 0;
    for (int i = 0; i < nargs; i++)
        total += 4 + strlen(args[i] ? args[i] : "");
    if (total > MAX_FRAME)
        return NULL;
    unsigned char *frame = malloc(4 + total), *p = frame + 4;
    if (frame == NULL)
        return NULL;
    put_u32(frame, (uint32_t)total);
    for (int i = 0; i < nargs; i++) {
        size_t len = strlen(args[i] ? args[i] : "");
        put_u32(p, (uint32_t)len);
        memcpy(p + 4, args[i] ? args[i] : "", len);
        p += 4 + len;
    }
    *frame_len = 4 + total;
    return frame;
}

/* One answer's fields, each NUL-terminated; -1 when the channel failed or the frame
 * is malformed. */
static int read_answer(int fd, char ***fields_out, int *count_out)
{
    unsigned char head[4];
    if (read_all(fd, head, 4) < 0)
        return -1;
    uint32_t total = get_u32(head);
    if (total > MAX_FRAME)
        return -1;
    unsigned char *payload = malloc(total ? total : 1);
    if (payload == NULL || read_all(fd, payload, total) < 0) {
        free(payload);
        return -1;
    }
    char **fields = NULL;
    int count = 0;
    uint32_t at = 0;
    while (at < total) {
        if (total - at < 4)
            goto malformed;
        uint32_t len = get_u32(payload + at);
        at += 4;
        if (len > total - at)
            goto malformed;
        char **grown = realloc(fields, sizeof(char *) * (size_t)(count + 1));
        if (grown == NULL)
            goto malformed;
        fields = grown;
        fields[count] = malloc(len + 1);
        if (fields[count] == NULL)
            goto malformed;
        memcpy(fields[count], payload + at, len);
        fields[count++][len] = '\0';
        at += len;
    }
    free(payload);
    *fields_out = fields;
    *count_out = count;
    return 0;
malformed:
    free(payload);
    free_fields(fields, count);
    return -1;
}

/* The answer to one request on ``fd``: the DRMAA code; the diagnosis is copied out and
 * the results (fields after the first two) handed over in ``results`` (the caller frees
 * them with free_fields). */
static int exchange(int fd, int nargs, const char *const *args, char ***results,
                    int *nresults, char *diag, size_t diag_len)
{
    size_t frame_len;
    unsigned char *frame = build_frame(nargs, args, &frame_len);
    if (frame == NULL)
        return fail(DRMAA_ERRNO_NO_MEMORY, diag, diag_len, error_texts[DRMAA_ERRNO_NO_MEMORY]);
    int sent = write_all(fd, frame, frame_len);
    free(frame);
    char **fields = NULL;
    int count = 0;
    if (sent < 0 || read_answer(fd, &fields, &count) < 0 || count < 2) {
        free_fields(fields, count);
        return -1;
    }
    char *end;
    long code = strtol(fields[0], &end, 10);
    if (*end != '\0' || code < 0 || code >= DRMAA_NO_ERRNO)
        code = DRMAA_ERRNO_INTERNAL_ERROR;
    copy_out(diag, diag_len, fields[1]);
    if (results != NULL) {
        *nresults = count - 2;
        *results = malloc(sizeof(char *) * (size_t)(count > 2 ? count - 2 : 1));
        if (*results == NULL) {
            free_fields(fields, count);
            return fail(DRMAA_ERRNO_NO_MEMORY, diag, diag_len,
                        error_texts[DRMAA_ERRNO_NO_MEMORY]);
        }
        for (int i = 2; i < count; i++)
            (*results)[i - 2] = fields[i];
        free(fields[0]);
        free(fields[1]);
        free(fields);
    } else {
        free_fields(fields, count);
    }
    return (int)code;
}

static int lost(char *diag, size_t diag_len)
{
    agent_lost = 1;
    return fail(DRMAA_ERRNO_DRM_COMMUNICATION_FAILURE, diag, diag_len,
                "the DRMAA agent (clients.drmaa) is gone: drmaa_exit ends the session");
}

/* One request on the session's channel, under the channel's mutex. */
static int call(int nargs, const char *const *args, char ***results, int *nresults,
                char *diag, size_t diag_len)
{
    if (results != NULL) {
        *results = NULL;
        *nresults = 0;
    }
    pthread_mutex_lock(&channel_lock);
    int code;
    if (channel < 0)
        code = fail(DRMAA_ERRNO_NO_ACTIVE_SESSION, diag, diag_len,
                    error_texts[DRMAA_ERRNO_NO_ACTIVE_SESSION]);
    else if (agent_lost)
        code = lost(diag, diag_len);
    else if ((code = exchange(channel, nargs, args, results, nresults, diag, diag_len)) < 0)
        code = lost(diag, diag_len);
    pthread_mutex_unlock(&channel_lock);
    return code;
}

/* A channel of the caller's own (see the file's comment); -1 with the code in *code. */
static int private_channel(int *code, char *diag, size_t diag_len)
{
    int pair[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair) < 0) {
        *code = fail(DRMAA_ERRNO_INTERNAL_ERROR, diag, diag_len, strerror(errno));
        return -1;
    }
    const char *args[] = {"attach"};
    size_t frame_len;
    unsigned char *frame = build_frame(1, args, &frame_len);
    if (frame == NULL) {
        close(pair[0]);
        close(pair[1]);
        *code = fail(DRMAA_ERRNO_NO_MEMORY, diag, diag_len, error_texts[DRMAA_ERRNO_NO_MEMORY]);
        return -1;
    }
    pthread_mutex_lock(&channel_lock);
    if (channel < 0) {
        *code = fail(DRMAA_ERRNO_NO_ACTIVE_SESSION, diag, diag_len,
                     error_texts[DRMAA_ERRNO_NO_ACTIVE_SESSION]);
    } else if (agent_lost) {
        *code = lost(diag, diag_len);
    } else {
        /* the frame's first byte carries the descriptor, the rest follows */
        char cmsg_space[CMSG_SPACE(sizeof(int))];
        memset(cmsg_space, 0, sizeof cmsg_space);
        struct iovec iov = {frame, 1};
        struct msghdr msg = {0};
        msg.msg_iov = &iov;
        msg.msg_iovlen = 1;
        msg.msg_control = cmsg_space;
        msg.msg_controllen = sizeof cmsg_space;
        struct cmsghdr *cmsg = CMSG_FIRSTHDR(&msg);
        cmsg->cmsg_level = SOL_SOCKET;
        cmsg->cmsg_type = SCM_RIGHTS;
        cmsg->cmsg_len = CMSG_LEN(sizeof(int));
        memcpy(CMSG_DATA(cmsg), &pair[1], sizeof(int));
        ssize_t n;
        do {
            n = sendmsg(channel, &msg, MSG_NOSIGNAL);
        } while (n < 0 && errno == EINTR);
        char **fields = NULL;
        int count = 0;
        if (n != 1 || write_all(channel, frame + 1, frame_len - 1) < 0 ||
                read_answer(channel, &fields, &count) < 0 || count < 2) {
            *code = lost(diag, diag_len);
        } else {
            *code = atoi(fields[0]);
            copy_out(diag, diag_len, fields[1]);
        }
        free_fields(fields, count);
    }
    pthread_mutex_unlock(&channel_lock);
    free(frame);
    close(pair[1]);
    if (*code != DRMAA_ERRNO_SUCCESS) {
        close(pair[0]);
        return -1;
    }
    return pair[0];
}

/* One request that may block, on a channel of its own (no mutex held meanwhile). */
static int blocking_call(int nargs, const char *const *args, char ***results, int *nresults,
                         char *diag, size_t diag_len)
{
    *results = NULL;
    *nresults = 0;
    int code;
    int fd = private_channel(&code, diag, diag_len);
    if (fd < 0)
        return code;
    code = exchange(fd, nargs, args, results, nresults, diag, diag_len);
    close(fd);
    if (code < 0)
        code = fail(DRMAA_ERRNO_DRM_COMMUNICATION_FAILURE, diag, diag_len,
                    "the DRMAA agent (clients.drmaa) ended during the call");
    return code;
}

/* ---------------------------------------------------------------- the agent */

/* The agent's environment: ours, with the package's directory first on PYTHONPATH
 * (*path: the one string made here, for the caller to free). */
static char **agent_environment(const char *package_dir, char **path)
{
    size_t n = 0;
    while (environ[n] != NULL)
        n++;
    char **env = calloc(n + 2, sizeof(char *));
    if (env == NULL)
        return NULL;
    const char *old = getenv("PYTHONPATH");
    size_t len = strlen(package_dir) + (old ? strlen(old) : 0) + 16;
    *path = malloc(len);
    if (*path == NULL) {
        free(env);
        return NULL;
    }
    if (old != NULL && *old != '\0')
        snprintf(*path, len, "PYTHONPATH=%s:%s", package_dir, old);
    else
        snprintf(*path, len, "PYTHONPATH=%s", package_dir);
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (*package_dir == '\0' || strncmp(environ[i], "PYTHONPATH=", 11) != 0)
            env[k++] = environ[i];
    if (*package_dir != '\0')
        env[k++] = *path;
    env[k] = NULL;
    return env;
}

/* The directory the package ``clients`` lies in: this library is
 * <dir>/clients/drmaa/libdrmaa.so, in a checkout (editable install) as in site-packages;
 * PYGE_DRMAA_PACKAGE_DIR names another. Into ``dir`` (PATH_MAX bytes); "" if unknown. */
static void package_directory(char *dir, size_t len)
{
    const char *named = getenv("PYGE_DRMAA_PACKAGE_DIR");
    Dl_info info;
    dir[0] = '\0';
    if (named != NULL && *named != '\0') {
        copy_out(dir, len, named);
        return;
    }
    if (dladdr(&contact_string, &info) == 0 || info.dli_fname == NULL)  /* (ours) */
        return;
    copy_out(dir, len, info.dli_fname);
    for (int up = 0; up < 3; up++) {  /* libdrmaa.so, drmaa/, clients/ */
        char *slash = strrchr(dir, '/');
        if (slash == NULL) {
            dir[0] = '\0';
            return;
        }
        *slash = '\0';
    }
}

/* Start the agent with ``fd`` as its descriptor AGENT_FD; its pid, or -1. Only
 * async-signal-safe calls between fork and exec: the host program may have threads. */
static pid_t start_agent(int fd)
{
    const char *python = getenv("PYGE_DRMAA_PYTHON");
    char package_dir[4096];
    if (python == NULL || *python == '\0')
        python = PYGE_PYTHON;
    package_directory(package_dir, sizeof package_dir);
    char fd_text[16];
    snprintf(fd_text, sizeof fd_text, "%d", AGENT_FD);
    char *const argv[] = {(char *)python, "-m", "clients.drmaa", "--fd", fd_text, NULL};
    char *path = NULL;
    char **env = agent_environment(package_dir, &path);
    int devnull = open("/dev/null", O_RDWR | O_CLOEXEC);
    if (env == NULL || devnull < 0) {
        free(env);
        free(path);
        if (devnull >= 0)
            close(devnull);
        return -1;
    }
    sigset_t none;
    sigemptyset(&none);
    pid_t pid = fork();
    if (pid == 0) {
        /* the agent reads no terminal and writes nothing into the program's output;
         * its standard error (a traceback, should it fail) stays the program's */
        dup2(devnull, 0);
        dup2(devnull, 1);
        if (fd == AGENT_FD) {
            fcntl(fd, F_SETFD, 0);
        } else {
            dup2(fd, AGENT_FD);
        }
        /* none of the program's descriptors live on in the agent */
#ifdef SYS_close_range
        if (syscall(SYS_close_range, AGENT_FD + 1, ~0U, 0) != 0)
#endif
            for (int other = AGENT_FD + 1; other < 1024; other++)
                close(other);
        sigprocmask(SIG_SETMASK, &none, NULL);
        signal(SIGPIPE, SIG_DFL);
        if (strchr(python, '/') != NULL)
            execve(python, argv, env);
        else
            execvpe(python, argv, env);
        _exit(127);
    }
    close(devnull);
    free(env);
    free(path);
    return pid;
}

static void end_agent(void)
{
    if (channel >= 0)
        close(channel);
    channel = -1;
    if (agent_pid > 0) {
        while (waitpid(agent_pid, NULL, 0) < 0 && errno == EINTR)
            ;
    }
    agent_pid = -1;
    agent_lost = 0;
}

int drmaa_init(const char *contact, char *diag, size_t diag_len)
{
    pthread_mutex_lock(&channel_lock);
    if (channel >= 0) {
        pthread_mutex_unlock(&channel_lock);
        return fail(DRMAA_ERRNO_ALREADY_ACTIVE_SESSION, diag, diag_len,
                    error_texts[DRMAA_ERRNO_ALREADY_ACTIVE_SESSION]);
    }
    int pair[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair) < 0) {
        pthread_mutex_unlock(&channel_lock);
        return fail(DRMAA_ERRNO_DRMS_INIT_FAILED, diag, diag_len, strerror(errno));
    }
    agent_pid = start_agent(pair[1]);
    close(pair[1]);
    if (agent_pid < 0) {
        close(pair[0]);
        pthread_mutex_unlock(&channel_lock);
        return fail(DRMAA_ERRNO_DRMS_INIT_FAILED, diag, diag_len,
                    "can't start the DRMAA agent (python -m clients.drmaa)");
    }
    channel = pair[0];
    const char *args[] = {"init", contact ? contact : ""};
    char **results = NULL;
    int nresults = 0;
    int code = exchange(channel, 2, args, &results, &nresults, diag, diag_len);
    if (code < 0) {
        code = fail(DRMAA_ERRNO_DRMS_INIT_FAILED, diag, diag_len,
                    "the DRMAA agent (python -m clients.drmaa) ended before "
                    "answering: is PYGE_DRMAA_PYTHON a Python with pygridengine?");
    }
    if (code == DRMAA_ERRNO_SUCCESS && nresults >= 1)
        copy_out(contact_string, sizeof contact_string, results[0]);
    free_fields(results, nresults);
    if (code != DRMAA_ERRNO_SUCCESS)
        end_agent();
    pthread_mutex_unlock(&channel_lock);
    return code;
}

int drmaa_exit(char *diag, size_t diag_len)
{
    pthread_mutex_lock(&channel_lock);
    if (channel < 0) {
        pthread_mutex_unlock(&channel_lock);
        return fail(DRMAA_ERRNO_NO_ACTIVE_SESSION, diag, diag_len, "");
    }
    int code = DRMAA_ERRNO_SUCCESS;
    if (!agent_lost) {
        const char *args[] = {"exit"};
        code = exchange(channel, 1, args, NULL, NULL, diag, diag_len);
        if (code < 0)
            code = fail(DRMAA_ERRNO_DRMS_EXIT_ERROR, diag, diag_len,
                        "the DRMAA agent (clients.drmaa) was gone");
    }
    end_agent();
    contact_string[0] = '\0';
    pthread_mutex_unlock(&channel_lock);
    return code;
}

/* ---------------------------------------------------------------- job templates */

int drmaa_allocate_job_template(drmaa_job_template_t **jt, char *diag, size_t diag_len)
{
    if (jt == NULL)
        return fail(DRMAA_ERRNO_INVALID_ARGUMENT, diag, diag_len,
                    error_texts[DRMAA_ERRNO_INVALID_ARGUMENT]);
    const char *args[] = {"jt_new"};
    char **results;
    int nresults;
    int code = call(1, args, &results, &nresults, diag, diag_len);
    if (code == DRMAA_ERRNO_SUCCESS) {
        *jt = calloc(1, sizeof **jt);
        if (*jt == NULL || nresults < 1)
            code = fail(DRMAA_ERRNO_NO_MEMORY, diag, diag_len,
                        error_texts[DRMAA_ERRNO_NO_MEMORY]);
        else
            copy_out((*jt)->id, sizeof (*jt)->id, results[0]);
    }
    free_fields(results, nresults);
    return code;
}

int drmaa_delete_job_template(drmaa_job_template_t *jt, char *diag, size_t diag_len)
{
    if (jt == NULL)
        return fail(DRMAA_ERRNO_INVALID_ARGUMENT, diag, diag_len,
                    error_texts[DRMAA_ERRNO_INVALID_ARGUMENT]);
    const char *args[] = {"jt_delete", jt->id};
    int code = call(2, args, NULL, NULL, diag, diag_len);
    free(jt);  /* ours whatever the agent says (a session that ended has no templates) */
    return code;
}

int drmaa_set_attribute(drmaa_job_template_t *jt, const char *name, const char *value,
                        char *diag, size_t diag_len)
{
    if (jt == NULL || name == NULL)
        return fail(DRMAA_ERRNO_INVALID_ARGUMENT, diag, diag_len,
                    error_texts[DRMAA_ERRNO_INVALID_ARGUMENT]);
    const char *args[] = {"set", jt->id, name, value ? value : ""};
    return call(4, args, NULL, NULL, diag, diag_len);
}

int drmaa_get_attribute(drmaa_job_template_t *jt, const char *name, char *value,
                        size_t value_len, char *diag, size_t diag_len)
{
    if (jt == NULL || name == NULL)
        return fail(DRMAA_ERRNO_INVALID_ARGUMENT, diag, diag_len,
                    error_texts[DRMAA_ERRNO_INVALID_ARGUMENT]);
    const char *args[] = {"get", jt->id, name};
    char **results;
    int nresults;
    int code = call(3, args, &results, &nresults, diag, diag_len);
    if (code == DRMAA_ERRNO_SUCCESS)
        copy_out(value, value_len, nresults >= 1 ? results[0] : "");
    free_fields(results, nresults);
    return code;
}

int drmaa_set_vector_attribute(drmaa_job_template_t *jt, const char *name,
                               const char *value[], char *diag, size_t diag_len)
{
    if (jt == NULL || name == NULL)
        return fail(DRMAA_ERRNO_INVALID_ARGUMENT, diag, diag_len,
                    error_texts[DRMAA_ERRNO_INVALID_ARGUMENT]);
    int n = 0;
    while (value != NULL && value[n] != NULL)
        n++;
    const char **args = malloc(sizeof(char *) * (size_t)(n + 3));
    if (args == NULL)
        return fail(DRMAA_ERRNO_NO_MEMORY, diag, diag_len, error_texts[DRMAA_ERRNO_NO_MEMORY]);
    args[0] = "setv";
    args[1] = jt->id;
    args[2] = name;
    for (int i = 0; i < n; i++)
        args[i + 3] = value[i];
    int code = call(n + 3, args, NULL, NULL, diag, diag_len);
    free(args);
    return code;
}

/* A string vector of ``results`` (taken over), in *out (allocated as ``size``). */
static int hand_over(struct pyge_strings **out, size_t size, char **results, int nresults,
                     char *diag, size_t diag_len)
{
    struct pyge_strings *v = calloc(1, size);
    if (v == NULL) {
        free_fields(results, nresults);
        return fail(DRMAA_ERRNO_NO_MEMORY, diag, diag_len, error_texts[DRMAA_ERRNO_NO_MEMORY]);
    }
    v->items = results;
    v->count = nresults;
    *out = v;
    return DRMAA_ERRNO_SUCCESS;
}

static int strings_call(int nargs, const char *const *args, struct pyge_strings **out,
                        size_t size, char *diag, size_t diag_len)
{
    char **results;
    int nresults;
    int code = call(nargs, args, &results, &nresults, diag, diag_len);
    if (code != DRMAA_ERRNO_SUCCESS) {
        free_fields(results, nresults);
        return code;
    }
    return hand_over(out, size, results, nresults, diag, diag_len);
}

int drmaa_get_vector_attribute(drmaa_job_template_t *jt, const char *name,
                               drmaa_attr_values_t **values, char *diag, size_t diag_len)
{
    if (jt == NULL || name == NULL || values == NULL)
        return fail(DRMAA_ERRNO_INVALID_ARGUMENT, diag, diag_len,
                    error_texts[DRMAA_ERRNO_INVALID_ARGUMENT]);
    const char *args[] = {"getv", jt->id, name};
    return strings_call(3, args, (struct pyge_strings **)values, sizeof **values, diag,
                        diag_len);
}

int drmaa_get_attribute_names(drmaa_attr_names_t **values, char *diag, size_t diag_len)
{
    if (values == NULL)
        return fail(DRMAA_ERRNO_INVALID_ARGUMENT, diag, diag_len,
                    error_texts[DRMAA_ERRNO_INVALID_ARGUMENT]);
    const char *args[] = {"names"};
    return strings_call(1, args, (struct pyge_strings **)values, sizeof **values, diag,
                        diag_len);
}

int drmaa_get_vector_attribute_names(drmaa_attr_names_t **values, char *diag,
                                     size_t diag_len)
{
    if (values == NULL)
        return fail(DRMAA_ERRNO_INVALID_ARGUMENT, diag, diag_len,
                    error_texts[DRMAA_ERRNO_INVALID_ARGUMENT]);
    const char *args[] = {"vector_names"};
    return strings_call(1, args, (struct pyge_strings **)values, sizeof **values, diag,
                        diag_len);
}

/* ---------------------------------------------------------------- jobs */

int drmaa_run_job(char *job_id, size_t job_id_len, const drmaa_job_template_t *jt,
                  char *diag, size_t diag_len)
{
    if (jt == NULL)
        return fail(DRMAA_ERRNO_INVALID_ARGUMENT, diag, diag_len,
                    error_texts[DRMAA_ERRNO_INVALID_ARGUMENT]);
    const char *args[] = {"run", jt->id};
    char **results;
    int nresults;
    int code = call(2, args, &results, &nresults, diag, diag_len);
    if (code == DRMAA_ERRNO_SUCCESS)
        copy_out(job_id, job_id_len, nresults >= 1 ? results[0] : "");
    free_fields(results, nresults);
    return code;
}

int drmaa_run_bulk_jobs(drmaa_job_ids_t **jobids, const drmaa_job_template_t *jt, int start,
                        int end, int incr, char *diag, size_t diag_len)
{
    if (jt == NULL || jobids == NULL)
        return fail(DRMAA_ERRNO_INVALID_ARGUMENT, diag, diag_len,
                    error_texts[DRMAA_ERRNO_INVALID_ARGUMENT]);
    char first[16], last[16], step[16];
    snprintf(first, sizeof first, "%d", start);
    snprintf(last, sizeof last, "%d", end);
    snprintf(step, sizeof step, "%d", incr);
    const char *args[] = {"run_bulk", jt->id, first, last, step};
    return strings_call(5, args, (struct pyge_strings **)jobids, sizeof **jobids, diag,
                        diag_len);
}

int drmaa_control(const char *jobid, int action, char *diag, size_t diag_len)
{
    if (jobid == NULL)
        return fail(DRMAA_ERRNO_INVALID_ARGUMENT, diag, diag_len,
                    error_texts[DRMAA_ERRNO_INVALID_ARGUMENT]);
    char action_text[16];
    snprintf(action_text, sizeof action_text, "%d", action);
    const char *args[] = {"control", jobid, action_text};
    return call(3, args, NULL, NULL, diag, diag_len);
}

int drmaa_synchronize(const char *job_ids[], signed long timeout, int dispose, char *diag,
                      size_t diag_len)
{
    if (job_ids == NULL)
        return fail(DRMAA_ERRNO_INVALID_ARGUMENT, diag, diag_len,
                    error_texts[DRMAA_ERRNO_INVALID_ARGUMENT]);
    int n = 0;
    while (job_ids[n] != NULL)
        n++;
    const char **args = malloc(sizeof(char *) * (size_t)(n + 3));
    if (args == NULL)
        return fail(DRMAA_ERRNO_NO_MEMORY, diag, diag_len, error_texts[DRMAA_ERRNO_NO_MEMORY]);
    char timeout_text[32], dispose_text[4];
    snprintf(timeout_text, sizeof timeout_text, "%ld", timeout);
    snprintf(dispose_text, sizeof dispose_text, "%d", dispose ? 1 : 0);
    args[0] = "synchronize";
    args[1] = timeout_text;
    args[2] = dispose_text;
    for (int i = 0; i < n; i++)
        args[i + 3] = job_ids[i];
    char **results;
    int nresults;
    int code = blocking_call(n + 3, args, &results, &nresults, diag, diag_len);
    free_fields(results, nresults);
    free(args);
    return code;
}

int drmaa_wait(const char *job_id, char *job_id_out, size_t job_id_out_len, int *stat,
               signed long timeout, drmaa_attr_values_t **rusage, char *diag,
               size_t diag_len)
{
    if (job_id == NULL)
        return fail(DRMAA_ERRNO_INVALID_ARGUMENT, diag, diag_len,
                    error_texts[DRMAA_ERRNO_INVALID_ARGUMENT]);
    char timeout_text[32];
    snprintf(timeout_text, sizeof timeout_text, "%ld", timeout);
    const char *args[] = {"wait", job_id, timeout_text};
    char **results;
    int nresults;
    int code = blocking_call(3, args, &results, &nresults, diag, diag_len);
    /* a finished job's answer: its id, its status and its usage (none: NO_RUSAGE) */
    if ((code == DRMAA_ERRNO_SUCCESS || code == DRMAA_ERRNO_NO_RUSAGE) && nresults >= 2) {
        copy_out(job_id_out, job_id_out_len, results[0]);
        if (stat != NULL)
            *stat = atoi(results[1]);
        free(results[0]);
        free(results[1]);
        memmove(results, results + 2, sizeof(char *) * (size_t)(nresults - 2));
        nresults -= 2;
        if (rusage != NULL && code == DRMAA_ERRNO_SUCCESS)
            return hand_over((struct pyge_strings **)rusage, sizeof **rusage, results,
                             nresults, diag, diag_len);
    }
    free_fields(results, nresults);
    return code;
}

int drmaa_job_ps(const char *job_id, int *remote_ps, char *diag, size_t diag_len)
{
    if (job_id == NULL || remote_ps == NULL)
        return fail(DRMAA_ERRNO_INVALID_ARGUMENT, diag, diag_len,
                    error_texts[DRMAA_ERRNO_INVALID_ARGUMENT]);
    const char *args[] = {"job_ps", job_id};
    char **results;
    int nresults;
    int code = call(2, args, &results, &nresults, diag, diag_len);
    if (code == DRMAA_ERRNO_SUCCESS)
        *remote_ps = nresults >= 1 ? atoi(results[0]) : DRMAA_PS_UNDETERMINED;
    free_fields(results, nresults);
    return code;
}

/* ---------------------------------------------------------------- the status word
 * drmaa_wait's ``stat`` (clients/drmaa/session.py, status_word, makes it): bit 0
 * exited, bit 1 signaled, bit 2 core dumped, bit 3 aborted; bits 8-15 the exit status,
 * bits 16-23 the signal number. */
#define STAT_EXITED 0x1
#define STAT_SIGNALED 0x2
#define STAT_COREDUMP 0x4
#define STAT_ABORTED 0x8

int drmaa_wifexited(int *exited, int stat, char *diag, size_t diag_len)
{
    (void)diag; (void)diag_len;
    if (exited != NULL)
        *exited = (stat & STAT_EXITED) != 0;
    return DRMAA_ERRNO_SUCCESS;
}

int drmaa_wexitstatus(int *exit_status, int stat, char *diag, size_t diag_len)
{
    (void)diag; (void)diag_len;
    if (exit_status != NULL)
        *exit_status = (stat >> 8) & 0xff;
    return DRMAA_ERRNO_SUCCESS;
}

int drmaa_wifsignaled(int *signaled, int stat, char *diag, size_t diag_len)
{
    (void)diag; (void)diag_len;
    if (signaled != NULL)
        *signaled = (stat & STAT_SIGNALED) != 0;
    return DRMAA_ERRNO_SUCCESS;
}

int drmaa_wcoredump(int *core_dumped, int stat, char *diag, size_t diag_len)
{
    (void)diag; (void)diag_len;
    if (core_dumped != NULL)
        *core_dumped = (stat & STAT_COREDUMP) != 0;
    return DRMAA_ERRNO_SUCCESS;
}

int drmaa_wifaborted(int *aborted, int stat, char *diag, size_t diag_len)
{
    (void)diag; (void)diag_len;
    if (aborted != NULL)
        *aborted = (stat & STAT_ABORTED) != 0;
    return DRMAA_ERRNO_SUCCESS;
}

static const char *const signal_names[] = {
    [SIGHUP] = "SIGHUP", [SIGINT] = "SIGINT", [SIGQUIT] = "SIGQUIT", [SIGILL] = "SIGILL",
    [SIGTRAP] = "SIGTRAP", [SIGABRT] = "SIGABRT", [SIGBUS] = "SIGBUS", [SIGFPE] = "SIGFPE",
    [SIGKILL] = "SIGKILL", [SIGUSR1] = "SIGUSR1", [SIGSEGV] = "SIGSEGV",
    [SIGUSR2] = "SIGUSR2", [SIGPIPE] = "SIGPIPE", [SIGALRM] = "SIGALRM",
    [SIGTERM] = "SIGTERM", [SIGCHLD] = "SIGCHLD", [SIGCONT] = "SIGCONT",
    [SIGSTOP] = "SIGSTOP", [SIGTSTP] = "SIGTSTP", [SIGTTIN] = "SIGTTIN",
    [SIGTTOU] = "SIGTTOU", [SIGURG] = "SIGURG", [SIGXCPU] = "SIGXCPU",
    [SIGXFSZ] = "SIGXFSZ", [SIGVTALRM] = "SIGVTALRM", [SIGPROF] = "SIGPROF",
    [SIGWINCH] = "SIGWINCH", [SIGIO] = "SIGIO", [SIGSYS] = "SIGSYS",
};

int drmaa_wtermsig(char *signal_name, size_t signal_len, int stat, char *diag,
                   size_t diag_len)
{
    (void)diag; (void)diag_len;
    int number = (stat >> 16) & 0xff;
    if (!(stat & STAT_SIGNALED)) {
        copy_out(signal_name, signal_len, "");
        return DRMAA_ERRNO_SUCCESS;
    }
    if (number > 0 && (size_t)number < sizeof signal_names / sizeof *signal_names &&
            signal_names[number] != NULL) {
        copy_out(signal_name, signal_len, signal_names[number]);
    } else if (signal_name != NULL && signal_len > 0) {
        snprintf(signal_name, signal_len, "SIG%d", number);
    }
    return DRMAA_ERRNO_SUCCESS;
}

/* ---------------------------------------------------------------- string vectors */

int drmaa_get_next_attr_name(drmaa_attr_names_t *values, char *value, size_t value_len)
{
    return next_string(values ? &values->v : NULL, value, value_len);
}

int drmaa_get_next_attr_value(drmaa_attr_values_t *values, char *value, size_t value_len)
{
    return next_string(values ? &values->v : NULL, value, value_len);
}

int drmaa_get_next_job_id(drmaa_job_ids_t *values, char *value, size_t value_len)
{
    return next_string(values ? &values->v : NULL, value, value_len);
}

static int count_of(struct pyge_strings *v, int *size)
{
    if (v == NULL || size == NULL)
        return DRMAA_ERRNO_INVALID_ARGUMENT;
    *size = v->count;
    return DRMAA_ERRNO_SUCCESS;
}

int drmaa_get_num_attr_names(drmaa_attr_names_t *values, int *size)
{
    return count_of(values ? &values->v : NULL, size);
}

int drmaa_get_num_attr_values(drmaa_attr_values_t *values, int *size)
{
    return count_of(values ? &values->v : NULL, size);
}

int drmaa_get_num_job_ids(drmaa_job_ids_t *values, int *size)
{
    return count_of(values ? &values->v : NULL, size);
}

void drmaa_release_attr_names(drmaa_attr_names_t *values)
{
    if (values != NULL) {
        release_strings(&values->v);
        free(values);
    }
}

void drmaa_release_attr_values(drmaa_attr_values_t *values)
{
    if (values != NULL) {
        release_strings(&values->v);
        free(values);
    }
}

void drmaa_release_job_ids(drmaa_job_ids_t *values)
{
    if (values != NULL) {
        release_strings(&values->v);
        free(values);
    }
}

/* ---------------------------------------------------------------- miscellaneous */

const char *drmaa_strerror(int drmaa_errno)
{
    if (drmaa_errno < 0 || drmaa_errno >= DRMAA_NO_ERRNO)
        return NULL;
    return error_texts[drmaa_errno];
}

int drmaa_get_contact(char *contact, size_t contact_len, char *diag, size_t diag_len)
{
    (void)diag; (void)diag_len;
    pthread_mutex_lock(&channel_lock);
    copy_out(contact, contact_len, contact_string);  /* "" outside a session, as 8.1.9 */
    pthread_mutex_unlock(&channel_lock);
    return DRMAA_ERRNO_SUCCESS;
}

int drmaa_version(unsigned int *major, unsigned int *minor, char *diag, size_t diag_len)
{
    (void)diag; (void)diag_len;
    if (major != NULL)
        *major = 1;
    if (minor != NULL)
        *minor = 0;
    return DRMAA_ERRNO_SUCCESS;
}

int drmaa_get_DRM_system(char *drm_system, size_t drm_system_len, char *diag,
                         size_t diag_len)
{
    (void)diag; (void)diag_len;
    copy_out(drm_system, drm_system_len, "SGE 8.1.9 (pygridengine)");
    return DRMAA_ERRNO_SUCCESS;
}

int drmaa_get_DRMAA_implementation(char *drmaa_impl, size_t drmaa_impl_len, char *diag,
                                   size_t diag_len)
{
    (void)diag; (void)diag_len;
    copy_out(drmaa_impl, drmaa_impl_len, "pygridengine DRMAA 1.0");
    return DRMAA_ERRNO_SUCCESS;
}
