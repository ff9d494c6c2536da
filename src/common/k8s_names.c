/* Kubernetes name rules (see k8s_names.h). */
#include "k8s_names.h"

#include <string.h>

static int is_alnum(unsigned char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'); }
static int is_lower_alnum(unsigned char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); }

int ts_k8s_label_value_ok(const char *s, size_t n, int allow_empty)
{
    if (n == 0)
        return allow_empty;
    if (n > 63 || !is_alnum((unsigned char)s[0]) || !is_alnum((unsigned char)s[n - 1]))
        return 0;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (!is_alnum(c) && c != '-' && c != '_' && c != '.')
            return 0;
    }
    return 1;
}

int ts_k8s_dns_subdomain_ok(const char *s, size_t n)
{
    if (n == 0 || n > 253)
        return 0;
    size_t start = 0;
    for (size_t i = 0; i <= n; i++) {
        if (i < n && s[i] != '.') {
            unsigned char c = (unsigned char)s[i];
            if (!is_lower_alnum(c) && c != '-')
                return 0;
            continue;
        }
        if (i == start || !is_lower_alnum((unsigned char)s[start]) || !is_lower_alnum((unsigned char)s[i - 1]))
            return 0;
        start = i + 1;
    }
    return 1;
}

int ts_k8s_label_key_ok(const char *k)
{
    const char *slash = strchr(k, '/');
    if (!slash)
        return ts_k8s_label_value_ok(k, strlen(k), 0);
    return ts_k8s_dns_subdomain_ok(k, (size_t)(slash - k)) && ts_k8s_label_value_ok(slash + 1, strlen(slash + 1), 0);
}
