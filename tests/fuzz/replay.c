/* Runs the fuzz target over the files named on the command line, or every file of a named
 * directory (the corpus: read when the test runs, so a new corpus file needs no
 * reconfigure), so every normal build replays them without libFuzzer. */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static uint8_t buf[1 << 22];

/* 1 on success (a regular file replayed), 0 if it cannot be read. */
static int replay_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "replay: cannot open %s\n", path);
        return 0;
    }
    size_t len = fread(buf, 1, sizeof buf, f);
    int bad = ferror(f);
    fclose(f);
    if (bad) {
        fprintf(stderr, "replay: cannot read %s\n", path);
        return 0;
    }
    LLVMFuzzerTestOneInput(buf, len);
    return 1;
}

int main(int argc, char **argv)
{
    int n = 0;
    for (int i = 1; i < argc; i++) {
        struct stat st;
        if (stat(argv[i], &st) != 0) {
            fprintf(stderr, "replay: cannot open %s\n", argv[i]);
            return 1;
        }
        if (!S_ISDIR(st.st_mode)) {
            if (!replay_file(argv[i]))
                return 1;
            n++;
            continue;
        }
        DIR *d = opendir(argv[i]);
        if (!d) {
            fprintf(stderr, "replay: cannot open directory %s\n", argv[i]);
            return 1;
        }
        int in_dir = 0;
        for (struct dirent *e; (e = readdir(d)) != NULL;) {
            if (e->d_name[0] == '.')
                continue;
            char path[4096];
            if ((size_t)snprintf(path, sizeof path, "%s/%s", argv[i], e->d_name) >= sizeof path) {
                fprintf(stderr, "replay: path too long in %s\n", argv[i]);
                closedir(d);
                return 1;
            }
            if (stat(path, &st) != 0 || !S_ISREG(st.st_mode))
                continue;
            if (!replay_file(path)) {
                closedir(d);
                return 1;
            }
            in_dir++;
        }
        closedir(d);
        if (in_dir == 0) {
            fprintf(stderr, "replay: no file in %s\n", argv[i]);
            return 1;
        }
        n += in_dir;
    }
    printf("replayed %d inputs\n", n);
    return n > 0 ? 0 : 1;
}
