/* Test helper: read a file with the library's YAML subset reader (src/common/yaml.c) and
 * print the tree as compact JSON with sorted keys on one line, or "error <status>: <message>"
 * (exit 1). Used by tests/yaml_check.py to compare with PyYAML. */
#include <stdio.h>
#include <stdlib.h>

#include "common/json.h"
#include "common/yaml.h"

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: yaml2json FILE\n");
        return 2;
    }
    char *text = NULL;
    size_t len;
    tsched_status st = ts_read_file(&text, &len, argv[1]);
    json_t *root = NULL;
    if (st == TSCHED_OK)
        st = ts_yaml_parse(&root, NULL, text, len);
    if (st != TSCHED_OK) {
        printf("error %d: %s\n", (int)st, tsched_last_error());
        free(text);
        return 1;
    }
    char *s = json_dumps(root, JSON_COMPACT | JSON_SORT_KEYS | JSON_ENCODE_ANY | JSON_REAL_PRECISION(17));
    printf("%s\n", s ? s : "null");
    free(s);
    json_decref(root);
    free(text);
    return 0;
}
