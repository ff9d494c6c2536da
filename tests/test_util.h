/* Shared helpers for the Check suites. */
#ifndef TSCHED_TEST_UTIL_H
#define TSCHED_TEST_UTIL_H

#include <check.h>
#include <string.h>

#include "topo-sched/topo-sched.h"

/* Assert a call returns `want`; on mismatch print the library's message. */
#define ck_assert_status(expr, want)                                                                               \
    do {                                                                                                           \
        tsched_status ck_st_ = (expr);                                                                             \
        ck_assert_msg(ck_st_ == (want), "%s returned %s, expected %s: %s", #expr, tsched_status_str(ck_st_),      \
                      tsched_status_str(want), tsched_last_error());                                               \
    } while (0)

#define ck_assert_ok(expr) ck_assert_status(expr, TSCHED_OK)

/* Assert the last error message contains `needle`. */
#define ck_assert_errmsg_has(needle)                                                                               \
    ck_assert_msg(strstr(tsched_last_error(), (needle)) != NULL, "error message \"%s\" lacks \"%s\"",             \
                  tsched_last_error(), (needle))

/* Index of a named element; the test fails if there is none. */
static inline uint32_t tu_sw(const tsched_topology *t, const char *name)
{
    uint32_t s = tsched_topology_find_switch(t, name);
    ck_assert_msg(s != TSCHED_NONE, "no switch %s", name);
    return s;
}

static inline uint32_t tu_node(const tsched_topology *t, const char *name)
{
    uint32_t n = tsched_topology_find_node(t, name);
    ck_assert_msg(n != TSCHED_NONE, "no node %s", name);
    return n;
}

static inline uint32_t tu_trunk(const tsched_topology *t, const char *a, const char *b)
{
    uint32_t r = tsched_topology_find_trunk(t, tu_sw(t, a), tu_sw(t, b));
    ck_assert_msg(r != TSCHED_NONE, "no trunk %s~%s", a, b);
    return r;
}

/* Directory of tests/data, passed by meson as TSCHED_TEST_DATA. */
#ifndef TSCHED_TEST_DATA
#define TSCHED_TEST_DATA "tests/data"
#endif

#endif
