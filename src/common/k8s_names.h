/* Internal: the Kubernetes name rules the exports and the pod-order file check
 * (k8s.io/apimachinery validation: IsValidLabelValue, IsDNS1123Subdomain, IsQualifiedName). */
#ifndef TS_COMMON_K8S_NAMES_H
#define TS_COMMON_K8S_NAMES_H

#include <stddef.h>

/* A label value (or a key's name part): at most 63 characters of
 * [A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?; empty only with `allow_empty`. */
int ts_k8s_label_value_ok(const char *s, size_t n, int allow_empty);
/* A lower-case RFC 1123 subdomain: at most 253 bytes of dot-separated parts of
 * [a-z0-9]([-a-z0-9]*[a-z0-9])?. */
int ts_k8s_dns_subdomain_ok(const char *s, size_t n);
/* A label key: [prefix/]name, prefix a subdomain, name as a label value (not empty). */
int ts_k8s_label_key_ok(const char *key);

#endif
