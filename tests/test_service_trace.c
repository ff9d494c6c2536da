/* The public trace calls (include/topo-sched/trace.h) and the service's trace-* ops: the bytes
 * the original command line wrote (tests/data/trace/golden, written by the binary of commit
 * fa77abc) come out of the C calls and out of the service for the same inputs and options;
 * the text and folder forms of convert-dcn agree; the options struct's size rule, the text
 * setter's messages, the limits, and the service's errors naming the option or field. */
#include <jansson.h>
#include <sys/stat.h>
#include <unistd.h>

#include "test_util.h"

#include "common/json.h"

#define TRACE_DATA TSCHED_TEST_DATA "/trace"

/* A file's bytes (NUL-terminated; `*len` may be NULL). */
static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    ck_assert_msg(f != NULL, "cannot open %s", path);
    ck_assert(fseek(f, 0, SEEK_END) == 0);
    long n = ftell(f);
    ck_assert(n >= 0 && fseek(f, 0, SEEK_SET) == 0);
    char *b = malloc((size_t)n + 1);
    ck_assert(b != NULL && fread(b, 1, (size_t)n, f) == (size_t)n);
    fclose(f);
    b[n] = '\0';
    if (len)
        *len = (size_t)n;
    return b;
}

/* `doc` (the library's, taken) plus the newline the command writes equals golden file `name`. */
static void same_as_golden(char *doc, const char *name)
{
    char path[512];
    snprintf(path, sizeof path, "%s/golden/%s.json", TRACE_DATA, name);
    char *want = slurp(path, NULL);
    size_t n = strlen(doc);
    ck_assert_msg(strlen(want) == n + 1 && memcmp(want, doc, n) == 0 && want[n] == '\n',
                  "%s: the library's bytes differ from the original command's", name);
    free(want);
    tsched_free(doc);
}

/* The golden case poisson-mix2: --jobs 60 --mean-interarrival-s 2 --sizes 6:1,12:2
 * --duration-dist lognormal:1,0.5 --model-mix golden/mix2.json --gpus-per-node 6 --seed 99
 * --compact, through the text setter. */
static void poisson_mix2(tsched_trace_options *o, char **mix)
{
    size_t len;
    *mix = slurp(TRACE_DATA "/golden/mix2.json", &len);
    tsched_trace_options_init(o);
    ck_assert_ok(tsched_trace_options_set(o, "jobs", "60"));
    ck_assert_ok(tsched_trace_options_set(o, "mean-interarrival-s", "2"));
    ck_assert_ok(tsched_trace_options_set(o, "sizes", "6:1,12:2"));
    ck_assert_ok(tsched_trace_options_set(o, "duration-dist", "lognormal:1,0.5"));
    ck_assert_ok(tsched_trace_options_set(o, "gpus-per-node", "6"));
    ck_assert_ok(tsched_trace_options_set(o, "seed", "99"));
    o->model_mix = *mix;
    o->model_mix_len = len;
    o->compact = 1;
}

START_TEST(c_calls_write_the_golden_bytes)
{
    tsched_trace_options o;
    char *doc = NULL, *mix;
    /* poisson-exp: the defaults, indented */
    tsched_trace_options_init(&o);
    o.jobs = 50;
    o.mean_interarrival_s = 5;
    o.sizes = "1:1,8:3,64:0.5";
    o.duration_dist = "exp:3600";
    ck_assert_ok(tsched_trace_poisson(&doc, &o));
    same_as_golden(doc, "poisson-exp");
    /* poisson-lognormal: the largest seed */
    o.jobs = 40;
    o.mean_interarrival_s = 120;
    o.sizes = "8:1,16:1,32:2";
    o.duration_dist = "lognormal:6,1.5";
    o.seed = UINT64_MAX;
    ck_assert_ok(tsched_trace_poisson(&doc, &o));
    same_as_golden(doc, "poisson-lognormal");
    poisson_mix2(&o, &mix);
    ck_assert_ok(tsched_trace_poisson(&doc, &o));
    same_as_golden(doc, "poisson-mix2");
    free(mix);
    /* alibaba-opts: --scale-gpus 8 --gbits 2.5 --compute-ms 333.3 --compact, from the file */
    tsched_trace_options_init(&o);
    o.scale_gpus = 8;
    o.gbits = 2.5;
    o.compute_ms = 333.3;
    o.compact = 1;
    ck_assert_ok(tsched_trace_convert_alibaba_file(&doc, TRACE_DATA "/pods.csv", &o));
    same_as_golden(doc, "alibaba-opts");
    /* alibaba-mix: --model-mix mix.json --seed 11 --gpus-per-node 4, from the text */
    size_t len, mlen;
    char *csv = slurp(TRACE_DATA "/pods.csv", &len);
    mix = slurp(TRACE_DATA "/mix.json", &mlen);
    tsched_trace_options_init(&o);
    o.model_mix = mix;
    o.model_mix_name = TRACE_DATA "/mix.json";
    o.seed = 11;
    o.gpus_per_node = 4;
    ck_assert_ok(tsched_trace_convert_alibaba(&doc, csv, len, TRACE_DATA "/pods.csv", &o));
    same_as_golden(doc, "alibaba-mix");
    free(mix);
    free(csv);
    /* dcn-opts: --seed 4 --compute-ms 1238.769231 --iterations 3 --arrival-window-s 100 --compact */
    tsched_trace_options_init(&o);
    ck_assert_ok(tsched_trace_options_set(&o, "seed", "4"));
    ck_assert_ok(tsched_trace_options_set(&o, "compute-ms", "1238.769231"));
    ck_assert_ok(tsched_trace_options_set(&o, "iterations", "3"));
    ck_assert_ok(tsched_trace_options_set(&o, "arrival-window-s", "100"));
    o.compact = 1;
    ck_assert_ok(tsched_trace_convert_dcn_dir(&doc, TRACE_DATA "/dcn/ring_size_2/", &o));
    same_as_golden(doc, "dcn-opts");
}
END_TEST

/* The dcn folder as texts (in another order, with a file that is not a job file) gives the
 * bytes of the folder form and of the original command. */
START_TEST(dcn_texts_equal_the_folder)
{
    static const char *const files[] = {"job_2-GPT_3.txt", "README", "job_10-LLaMA2_70B.txt", "job_0-BLOOM.txt"};
    const char *names[4], *texts[4];
    size_t lens[4];
    char *bufs[4];
    for (int i = 0; i < 4; i++) {
        char p[512];
        snprintf(p, sizeof p, "%s/dcn/ring_size_2/%s", TRACE_DATA, files[i]);
        bufs[i] = slurp(p, &lens[i]);
        names[i] = files[i];
        texts[i] = bufs[i];
    }
    char *doc = NULL, *dir = NULL;
    ck_assert_ok(tsched_trace_convert_dcn(&doc, TRACE_DATA "/dcn/ring_size_2", names, texts, lens, 4, NULL));
    ck_assert_ok(tsched_trace_convert_dcn_dir(&dir, TRACE_DATA "/dcn/ring_size_2", NULL));
    ck_assert_str_eq(doc, dir);
    tsched_free(dir);
    same_as_golden(doc, "dcn-default");
    /* lens NULL: each text up to its NUL */
    ck_assert_ok(tsched_trace_convert_dcn(&doc, TRACE_DATA "/dcn/ring_size_2", names, texts, NULL, 4, NULL));
    same_as_golden(doc, "dcn-default");
    /* a K twice, no job file */
    names[1] = "job_2-other.txt";
    ck_assert_status(tsched_trace_convert_dcn(&doc, "d/r", names, texts, lens, 2, NULL), TSCHED_E_DUPLICATE);
    ck_assert_errmsg_has("d/r: job number 2 twice");
    ck_assert_ptr_null(doc);
    ck_assert_status(tsched_trace_convert_dcn(&doc, "d/r", names, texts, lens, 0, NULL), TSCHED_E_NOT_FOUND);
    for (int i = 0; i < 4; i++)
        free(bufs[i]);
}
END_TEST

/* A request's answer as text: `{"id":1,"ok":true,"result":` + the result + `}`. */
static char *service_result(tsched_service *svc, json_t *req)
{
    char *text = json_dumps(req, JSON_COMPACT);
    json_decref(req);
    char *answer = NULL;
    ck_assert_ok(tsched_service_handle(&answer, NULL, svc, text, strlen(text)));
    free(text);
    static const char head[] = "{\"id\":1,\"ok\":true,\"result\":";
    size_t n = strlen(answer);
    ck_assert_msg(strncmp(answer, head, sizeof head - 1) == 0 && answer[n - 1] == '}', "answer: %.300s", answer);
    char *r = malloc(n - sizeof head + 1);
    ck_assert(r != NULL);
    memcpy(r, answer + sizeof head - 1, n - sizeof head);
    r[n - sizeof head] = '\0';
    tsched_free(answer);
    return r;
}

/* An error answer: its status name and message contains `has`. */
static void service_error(tsched_service *svc, const char *req, const char *status, const char *has)
{
    char *answer = NULL;
    ck_assert_ok(tsched_service_handle(&answer, NULL, svc, req, strlen(req)));
    json_t *a = json_loads(answer, 0, NULL);
    ck_assert_msg(a && json_is_false(json_object_get(a, "ok")), "expected an error: %s", answer);
    ck_assert_str_eq(json_string_value(json_object_get(a, "status")), status);
    ck_assert_msg(strstr(json_string_value(json_object_get(a, "error")), has), "%s lacks \"%s\"", answer, has);
    json_decref(a);
    tsched_free(answer);
}

START_TEST(service_answers_the_golden_bytes)
{
    tsched_service *svc;
    ck_assert_ok(tsched_service_new(&svc));
    /* poisson-mix2 (compact): options as numbers and as text, the mix as an object */
    json_t *mix = json_load_file(TRACE_DATA "/golden/mix2.json", 0, NULL);
    ck_assert(mix != NULL);
    json_t *req = json_pack("{s:i, s:s, s:o, s:{s:i, s:s, s:s, s:s, s:i, s:s}}", "id", 1, "op", "trace-poisson",
                            "model-mix", mix, "options", "jobs", 60, "mean-interarrival-s", "2", "sizes",
                            "6:1,12:2", "duration-dist", "lognormal:1,0.5", "gpus-per-node", 6, "seed", "99");
    same_as_golden(service_result(svc, req), "poisson-mix2");
    /* poisson-fixed: --seed 0 --compact; the real 0.001 as a JSON number */
    req = json_pack("{s:i, s:s, s:{s:i, s:f, s:s, s:s, s:i}}", "id", 1, "op", "trace-poisson", "options", "jobs", 7,
                    "mean-interarrival-s", 0.001, "sizes", "16:1", "duration-dist", "fixed:2.5", "seed", 0);
    same_as_golden(service_result(svc, req), "poisson-fixed");
    /* alibaba-opts: the CSV's text, named as the command named it */
    char *csv = slurp(TRACE_DATA "/pods.csv", NULL);
    req = json_pack("{s:i, s:s, s:s, s:s, s:{s:i, s:f, s:s}}", "id", 1, "op", "trace-convert-alibaba", "text", csv,
                    "name", TRACE_DATA "/pods.csv", "options", "scale-gpus", 8, "gbits", 2.5, "compute-ms", "333.3");
    same_as_golden(service_result(svc, req), "alibaba-opts");
    free(csv);
    /* dcn-opts: the folder's files as a field */
    json_t *files = json_object();
    static const char *const names[] = {"job_0-BLOOM.txt", "job_2-GPT_3.txt", "job_10-LLaMA2_70B.txt"};
    for (int i = 0; i < 3; i++) {
        char p[512];
        snprintf(p, sizeof p, "%s/dcn/ring_size_2/%s", TRACE_DATA, names[i]);
        char *t = slurp(p, NULL);
        json_object_set_new(files, names[i], json_string(t));
        free(t);
    }
    req = json_pack("{s:i, s:s, s:s, s:o, s:{s:i, s:f, s:i, s:i, s:b}}", "id", 1, "op", "trace-convert-dcn", "dir",
                    TRACE_DATA "/dcn/ring_size_2/", "files", files, "options", "seed", 4, "compute-ms", 1238.769231,
                    "iterations", 3, "arrival-window-s", 100, "compact", 1);
    same_as_golden(service_result(svc, req), "dcn-opts");

    /* errors name the request's option or field */
    service_error(svc,
                  "{\"id\":1,\"op\":\"trace-poisson\",\"options\":{\"jobs\":1,\"mean-interarrival-s\":1,"
                  "\"sizes\":\"8:-1\",\"duration-dist\":\"fixed:1\"}}",
                  "TSCHED_E_RANGE", "options.sizes: weight of 8 is -1");
    service_error(svc,
                  "{\"id\":1,\"op\":\"trace-poisson\",\"options\":{\"jobs\":0,\"mean-interarrival-s\":1,"
                  "\"sizes\":\"8:1\",\"duration-dist\":\"fixed:1\"}}",
                  "TSCHED_E_RANGE", "options.jobs: '0' is not a whole number in [1, 1000000]");
    service_error(svc, "{\"id\":1,\"op\":\"trace-poisson\",\"options\":{\"jobs\":1}}", "TSCHED_E_NOT_FOUND",
                  "are required");
    service_error(svc, "{\"id\":1,\"op\":\"trace-poisson\",\"options\":{\"jobs\":true}}", "TSCHED_E_TYPE",
                  "options.jobs: expected a number or a string");
    service_error(svc, "{\"id\":1,\"op\":\"trace-poisson\",\"options\":{\"scale-gpus\":2}}", "TSCHED_E_FORMAT",
                  "options.scale-gpus: unknown option");
    service_error(svc, "{\"id\":1,\"op\":\"trace-convert-alibaba\",\"text\":\"a,b\\n\",\"options\":{\"gbits\":-0.5}}",
                  "TSCHED_E_RANGE", "options.gbits: '-0.5' is not a positive number");
    service_error(svc, "{\"id\":1,\"op\":\"trace-convert-alibaba\",\"text\":\"a,b\\n1,2\\n\",\"name\":\"p.csv\"}",
                  "TSCHED_E_NOT_FOUND", "p.csv");
    service_error(svc, "{\"id\":1,\"op\":\"trace-convert-alibaba\"}", "TSCHED_E_NOT_FOUND", "text");
    service_error(svc, "{\"id\":1,\"op\":\"trace-convert-dcn\",\"dir\":\"a/b\",\"files\":{\"job_1-X.txt\":3}}",
                  "TSCHED_E_TYPE", "files.job_1-X.txt: expected a string");
    service_error(svc, "{\"id\":1,\"op\":\"trace-convert-dcn\",\"dir\":\"a/b\"}", "TSCHED_E_NOT_FOUND", "files");
    service_error(svc, "{\"id\":1,\"op\":\"trace-convert-dcn\",\"dir\":\"a/b\",\"files\":{}}", "TSCHED_E_NOT_FOUND",
                  "a/b: no job_<K>-<MODEL>.txt files");
    service_error(svc,
                  "{\"id\":1,\"op\":\"trace-convert-dcn\",\"dir\":\"a/b\",\"files\":{\"job_1-X.txt\":\"#src dst "
                  "src_tor dst_tor start_time flow_size compute_time stage_index\\n96 96 0 0 0 1 1 0\\n\"}}",
                  "TSCHED_E_RANGE", "a/b/job_1-X.txt:2: dst: flow from server vertex 96 to itself");
    service_error(svc, "{\"id\":1,\"op\":\"trace-poisson\",\"model-mix\":{\"format\":\"x\"},\"options\":{\"jobs\":1,"
                  "\"mean-interarrival-s\":1,\"sizes\":\"8:1\",\"duration-dist\":\"fixed:1\"}}",
                  "TSCHED_E_FORMAT", "model-mix: format");
    tsched_service_free(svc);
}
END_TEST

/* Older option structs (every size ending on a field boundary) get the defaults past their
 * end; other sizes are refused naming the struct. */
START_TEST(options_size_rule)
{
    tsched_trace_options o, full;
    char *a = NULL, *b = NULL;
    tsched_trace_options_init(&full);
    full.jobs = 5;
    full.mean_interarrival_s = 3;
    full.sizes = "8:1";
    full.duration_dist = "exp:10";
    full.compact = 1;
    ck_assert_ok(tsched_trace_poisson(&a, &full));
    /* without `compact` (the struct before it): indented, otherwise the same */
    o = full;
    o.size = offsetof(tsched_trace_options, compact);
    ck_assert_ok(tsched_trace_poisson(&b, &o));
    json_t *ja = json_loads(a, 0, NULL), *jb = json_loads(b, 0, NULL);
    ck_assert(ja && jb && json_equal(ja, jb) && strchr(a, '\n') == NULL && strchr(b, '\n') != NULL);
    json_decref(ja);
    json_decref(jb);
    tsched_free(b);
    /* a struct ending before `jobs` leaves the poisson options unset: refused, naming one */
    o.size = offsetof(tsched_trace_options, jobs);
    ck_assert_status(tsched_trace_poisson(&b, &o), TSCHED_E_RANGE);
    ck_assert_errmsg_has("--sizes: required");
    o = full;
    o.jobs = 0;
    ck_assert_status(tsched_trace_poisson(&b, &o), TSCHED_E_RANGE);
    ck_assert_errmsg_has("--jobs: '0' is not a whole number in [1, 1000000]");
    o.size = offsetof(tsched_trace_options, jobs);
    /* the setter writes only what the caller's struct holds */
    ck_assert_status(tsched_trace_options_set(&o, "sizes", "8:1"), TSCHED_E_INVALID);
    ck_assert_errmsg_has("past the caller's struct");
    ck_assert_ok(tsched_trace_options_set(&o, "seed", "9"));
    ck_assert_uint_eq(o.seed, 9);
    o.size = offsetof(tsched_trace_options, seed) + 3;
    ck_assert_status(tsched_trace_poisson(&b, &o), TSCHED_E_INVALID);
    ck_assert_errmsg_has("tsched_trace_options");
    o.size = sizeof o + 8;
    ck_assert_status(tsched_trace_options_set(&o, "seed", "1"), TSCHED_E_INVALID);
    tsched_free(a);
}
END_TEST

/* The setter's checks and messages are the command line's. */
START_TEST(setter_messages)
{
    static const struct {
        const char *name, *value, *msg;
    } bad[] = {
        {"seed", "x1", "--seed: 'x1' is not a whole number"},
        {"seed", "-1", "--seed: '-1' is not a whole number"},
        {"gbits", "0", "--gbits: '0' is not a positive number"},
        {"gbits", "inf", "--gbits: 'inf' is not a positive number"},
        {"compute-ms", "nan", "--compute-ms: 'nan' is not a number of milliseconds in [5e-7, 9.2e12]"},
        {"gpus-per-node", "0", "--gpus-per-node: '0' is not a whole number in [1, 65536]"},
        {"gpus-per-node", "65537", "--gpus-per-node: '65537' is not a whole number in [1, 65536]"},
        {"scale-gpus", "3", "--scale-gpus: '3' is not a power of two in [1, 65536]"},
        {"scale-gpus", "131072", "--scale-gpus: '131072' is not a power of two in [1, 65536]"},
        {"iterations", "0", "--iterations: '0' is not a whole number in [1, 2^53]"},
        {"iterations", "9007199254740993", "--iterations: '9007199254740993' is not a whole number in [1, 2^53]"},
        {"arrival-window-s", "1e300", "--arrival-window-s: '1e300' is not a number in [0, 9.2e9]"},
        {"jobs", "1000001", "--jobs: '1000001' is not a whole number in [1, 1000000]"},
        {"mean-interarrival-s", "-2", "--mean-interarrival-s: '-2' is not a number in (0, 9.2e9]"},
        {"sizes", "4:1,4:2", "--sizes: size 4 given twice"},
        {"duration-dist", "weibull:1", "--duration-dist: unknown distribution 'weibull' (fixed, exp, lognormal)"},
    };
    tsched_trace_options o, before;
    tsched_trace_options_init(&o);
    before = o;
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        ck_assert_status(tsched_trace_options_set(&o, bad[i].name, bad[i].value), TSCHED_E_RANGE);
        ck_assert_str_eq(tsched_last_error(), bad[i].msg);
        ck_assert(memcmp(&o, &before, sizeof o) == 0);
    }
    ck_assert_status(tsched_trace_options_set(&o, "bogus", "1"), TSCHED_E_INVALID);
    ck_assert_errmsg_has("unknown option 'bogus'");
    /* the edges that are accepted */
    ck_assert_ok(tsched_trace_options_set(&o, "seed", "18446744073709551615"));
    ck_assert_uint_eq(o.seed, UINT64_MAX);
    ck_assert_ok(tsched_trace_options_set(&o, "iterations", "9007199254740992"));
    ck_assert_ok(tsched_trace_options_set(&o, "arrival-window-s", "0"));
    ck_assert_ok(tsched_trace_options_set(&o, "scale-gpus", "65536"));
    ck_assert_uint_eq(o.scale_gpus, 65536);
    ck_assert(o.arrival_window_s == 0);
}
END_TEST

/* input_bytes bounds every input; the service's thread reads no folder. */
START_TEST(limits_and_files)
{
    tsched_limits lim = {.size = sizeof lim};
    ck_assert_ok(tsched_limits_get(&lim));
    tsched_limits small = lim;
    small.input_bytes = 100;
    ck_assert_ok(tsched_limits_set(&small));
    char *csv = slurp(TRACE_DATA "/pods.csv", NULL), *doc = NULL;
    ck_assert_status(tsched_trace_convert_alibaba(&doc, csv, strlen(csv), "pods.csv", NULL), TSCHED_E_TOO_LARGE);
    ck_assert_errmsg_has("input_bytes");
    ck_assert_status(tsched_trace_convert_dcn_dir(&doc, TRACE_DATA "/dcn/ring_size_2", NULL), TSCHED_E_TOO_LARGE);
    ck_assert_errmsg_has("input_bytes");
    ck_assert_ok(tsched_limits_set(&lim));
    free(csv);
    int was = ts_files_forbid(1);
    ck_assert_status(tsched_trace_convert_dcn_dir(&doc, TRACE_DATA "/dcn/ring_size_2", NULL), TSCHED_E_INVALID);
    ck_assert_errmsg_has("reads no files");
    ck_assert_status(tsched_trace_convert_alibaba_file(&doc, TRACE_DATA "/pods.csv", NULL), TSCHED_E_INVALID);
    ts_files_forbid(was);
    /* a FIFO named like a job file is refused at once, naming it */
    char dir[64], fifo[128];
    snprintf(dir, sizeof dir, "tst-trace-%ld", (long)getpid());
    snprintf(fifo, sizeof fifo, "%s/job_1-X.txt", dir);
    ck_assert(mkdir(dir, 0700) == 0 && mkfifo(fifo, 0600) == 0);
    ck_assert_status(tsched_trace_convert_dcn_dir(&doc, dir, NULL), TSCHED_E_IO);
    ck_assert_errmsg_has("job_1-X.txt: not a regular file");
    remove(fifo);
    remove(dir);
    ck_assert_status(tsched_trace_convert_dcn_dir(&doc, dir, NULL), TSCHED_E_IO);
    ck_assert_errmsg_has("cannot open the folder");
    /* the mix check */
    ck_assert_status(tsched_trace_mix_check("{\"format\": \"tsched.model-mix.v1\"}", 0, "m.json"), TSCHED_E_FORMAT);
    ck_assert_errmsg_has("m.json: models");
}
END_TEST

/* Seeded random poisson runs: the service, the C call and the text setter agree byte for byte. */
START_TEST(random_options_agree)
{
    tsched_service *svc;
    ck_assert_ok(tsched_service_new(&svc));
    uint64_t x = 12345;
    for (int k = 0; k < 20; k++) {
        x = x * 6364136223846793005u + 1442695040888963407u;
        unsigned jobs = 1 + (unsigned)(x >> 40) % 40, g = 1u << ((x >> 20) % 6);
        double mean = 0.5 + (double)((x >> 8) % 1000) / 7.0;
        char sizes[64], dist[64], seed[32];
        snprintf(sizes, sizeof sizes, "%u:1,%u:%u", g, 2 * g, 1 + (unsigned)(x % 5));
        snprintf(dist, sizeof dist, k % 3 == 0 ? "fixed:%u" : k % 3 == 1 ? "exp:%u" : "lognormal:%u,0.5",
                 1 + (unsigned)(x >> 50) % 9);
        snprintf(seed, sizeof seed, "%llu", (unsigned long long)(x >> 3));
        tsched_trace_options o;
        tsched_trace_options_init(&o);
        o.jobs = jobs;
        o.mean_interarrival_s = mean;
        o.sizes = sizes;
        o.duration_dist = dist;
        o.compact = 1;
        ck_assert_ok(tsched_trace_options_set(&o, "seed", seed));
        char *c = NULL;
        ck_assert_ok(tsched_trace_poisson(&c, &o));
        json_t *req = json_pack("{s:i, s:s, s:{s:i, s:f, s:s, s:s, s:s}}", "id", 1, "op", "trace-poisson", "options",
                                "jobs", (int)jobs, "mean-interarrival-s", mean, "sizes", sizes, "duration-dist",
                                dist, "seed", seed);
        char *s = service_result(svc, req);
        ck_assert_str_eq(c, s);
        json_t *d = json_loads(c, 0, NULL);
        ck_assert_uint_eq(json_array_size(json_object_get(d, "jobs")), jobs);
        json_decref(d);
        free(s);
        tsched_free(c);
    }
    tsched_service_free(svc);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("trace");
    TCase *tc = tcase_create("trace");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, c_calls_write_the_golden_bytes);
    tcase_add_test(tc, dcn_texts_equal_the_folder);
    tcase_add_test(tc, service_answers_the_golden_bytes);
    tcase_add_test(tc, options_size_rule);
    tcase_add_test(tc, setter_messages);
    tcase_add_test(tc, limits_and_files);
    tcase_add_test(tc, random_options_agree);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
