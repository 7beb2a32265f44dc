/*
 * A stand-in libnvidia-ml.so.1 for the NVML binding's tests: the real C ABI (names, signatures, struct layouts and
 * return codes of nvml.h) over a node described by a small text file, so the Java side is tested through the same
 * dlopen + downcall path it takes on a GPU node. Stub-only entry points start with nvmlStub.
 *
 * Configuration (nvmlStubConfigure, or at the first nvmlInit_v2 the file $NVML_STUB_CONFIG names), one directive a
 * line, '#' starts a comment:
 *   driver <version>
 *   card <uuid> <busId> <minor> <numa|-1> <mig 0|1> <memoryMiB> <name, rest of the line>
 *   topo <a> <b> <level>             nvmlGpuTopologyLevel_t; pairs not named are SYSTEM (50)
 *   nvlink <a> <b> <lanes>           direct links; each card uses its next free link numbers
 *   nvswitch <card> <switch> <lanes> links from the card to NVSwitch number <switch>
 *   down <card> <link>               that link exists but is inactive
 *   events <card> <mask>             event types the card supports (default 0xa: Xid and double-bit ECC)
 *   fail <function> <card|-1> <rc>   that function returns rc for that card (-1: every call)
 *   process <card> <pid> <usedMiB|na> [compute|mps|both]
 *                                    a process with memory on the card (na: NVML_VALUE_NOT_AVAILABLE), in NVML's
 *                                    compute list, its MPS list, or both, as an MPS client is (default compute)
 *   spawn <card> <n>                 n more compute processes (1 MiB, pids from 100000) start on the card each time a
 *                                    process list of it answers INSUFFICIENT_SIZE, as they can between a caller's calls
 *   util <card> <pid> <sm> <mem> <timestampMicros>
 *                                    a process utilization sample; several per pid are a history
 *   computemode <card> <mode>        nvmlComputeMode_t, 0 DEFAULT .. 3 EXCLUSIVE_PROCESS (default 0); any other
 *                                    number is passed through, as a newer driver's value would be
 *   migmode <card> <current> <pending>
 *                                    the card's MIG mode now and after its next reset (default: the card line's mig)
 *   mig <card> <gi> <ci> <start> <memorySlices> <giSlices> <ciSlices> <memoryMiB> <uuid>
 *                                    a MIG device: compute instance <ci> of GPU instance <gi>, which takes memory
 *                                    slices <start>.. and <giSlices> compute slices, of which the compute instance
 *                                    takes <ciSlices>; MIG device indexes follow the lines' order per card
 *
 * nvmlStubUpdate reads the last five kinds only, and replaces what they describe (every process, sample, spawn count,
 * compute mode and failure) while NVML stays initialised: a node whose processes come and go.
 *
 * Built with -DNVML_STUB_WITHOUT_V3 it lacks nvmlDeviceGet(MPS)ComputeRunningProcesses_v3, as drivers before R510
 * (NVML 11.6) do; with -DNVML_STUB_WITHOUT_V2 as well it has neither those nor _v2, as drivers before R455 (11.1).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef int nvmlReturn_t;
typedef int nvmlComputeMode_t;
typedef struct card *nvmlDevice_t;
typedef struct event_set *nvmlEventSet_t;

typedef struct { unsigned long long total, free, used; } nvmlMemory_t;
typedef struct {
    char busIdLegacy[16];
    unsigned int domain, bus, device, pciDeviceId, pciSubSystemId;
    char busId[32];
} nvmlPciInfo_t;
typedef struct {
    nvmlDevice_t device;
    unsigned long long eventType, eventData;
    unsigned int gpuInstanceId, computeInstanceId;
} nvmlEventData_t;
/* What the _v3 process lists fill, and the _v2 ones too (nvmlProcessInfo_v2_t has the same fields). */
typedef struct {
    unsigned int pid;
    unsigned long long usedGpuMemory;
    unsigned int gpuInstanceId, computeInstanceId;
} nvmlProcessInfo_t;
typedef struct {
    unsigned int pid;
    unsigned long long timeStamp;
    unsigned int smUtil, memUtil, encUtil, decUtil;
} nvmlProcessUtilizationSample_t;

/* The Java layouts (NvmlLayouts) are written against these sizes; a mismatch must fail here, not at run time. */
_Static_assert(sizeof(nvmlPciInfo_t) == 68, "nvmlPciInfo_t");
_Static_assert(sizeof(nvmlEventData_t) == 32, "nvmlEventData_t");
_Static_assert(sizeof(nvmlMemory_t) == 24, "nvmlMemory_t");
_Static_assert(sizeof(nvmlProcessInfo_t) == 24, "nvmlProcessInfo_t");
_Static_assert(sizeof(nvmlProcessUtilizationSample_t) == 32, "nvmlProcessUtilizationSample_t");

/* MIG: nvmlDeviceAttributes_t and nvmlGpuInstanceInfo_t as nvml.h has them (NvmlLayouts.MIG_ATTRIBUTES, GPU_INSTANCE). */
typedef struct {
    unsigned int multiprocessorCount, sharedCopyEngineCount, sharedDecoderCount, sharedEncoderCount;
    unsigned int sharedJpegCount, sharedOfaCount, gpuInstanceSliceCount, computeInstanceSliceCount;
    unsigned long long memorySizeMB;
} nvmlDeviceAttributes_t;
typedef struct gpu_instance *nvmlGpuInstance_t;
typedef struct {
    nvmlDevice_t device;
    unsigned int id, profileId, start, size;
} nvmlGpuInstanceInfo_t;
_Static_assert(sizeof(nvmlDeviceAttributes_t) == 40, "nvmlDeviceAttributes_t");
_Static_assert(sizeof(nvmlGpuInstanceInfo_t) == 24, "nvmlGpuInstanceInfo_t");

#define MAX_CARDS 16
#define MAX_LINKS 18 /* NVML_NVLINK_MAX_LINKS */
#define MAX_FAILS 32
#define MAX_QUEUE 64
#define MAX_PROCESSES 1024
#define MAX_SAMPLES 256
#define MAX_MIGS 64
#define MIGS_PER_CARD 7 /* what nvmlDeviceGetMaxMigDeviceCount says of a card in MIG mode */
#define IN_COMPUTE 1
#define IN_MPS 2
#define NOT_AVAILABLE (~0ULL) /* NVML_VALUE_NOT_AVAILABLE as an unsigned long long */
#define INSUFFICIENT_SIZE 7
#define NOT_FOUND 6
#define LINK_TO_GPU 0
#define LINK_TO_SWITCH 2

struct link { int used, active, kind, remote; };
struct card {
    char uuid[96], name[96], bus_id[32];
    unsigned int bus, minor, mig, mig_pending, memory_mib, event_mask, spawn;
    int numa, compute_mode;
    struct link links[MAX_LINKS];
    /* a MIG device only: its card, GPU and compute instance, and the slices they take */
    int parent;
    unsigned int gi, ci, start, size, gi_slices, ci_slices;
};
struct gpu_instance { int card; unsigned int id, start, size; };
struct fail { char function[64]; int card; nvmlReturn_t rc; };
struct event { int card; unsigned long long type, data; nvmlReturn_t rc; };
struct event_set { unsigned long long mask[MAX_CARDS]; };
struct process { int card, lists; unsigned int pid; unsigned long long used_bytes; };
struct sample { int card; nvmlProcessUtilizationSample_t value; };

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t arrived = PTHREAD_COND_INITIALIZER;
static struct card cards[MAX_CARDS];
static int card_count, init_count, event_sets;
static int topo[MAX_CARDS][MAX_CARDS];
static char driver[80];
static struct fail fails[MAX_FAILS];
static int fail_count;
static struct event queue[MAX_QUEUE];
static int queued;
static struct process processes[MAX_PROCESSES];
static int process_count;
static struct sample samples[MAX_SAMPLES];
static int sample_count;
static struct card migs[MAX_MIGS];
static int mig_count;
static struct gpu_instance gpu_instances[MAX_MIGS];

static nvmlReturn_t injected(const char *function, int card) {
    for (int i = 0; i < fail_count; i++) {
        if (strcmp(fails[i].function, function) == 0 && (fails[i].card == -1 || fails[i].card == card)) {
            return fails[i].rc;
        }
    }
    return 0;
}

/* Every device call starts here: initialised, a handle this library gave out, no injected failure. */
static nvmlReturn_t enter(const char *function, nvmlDevice_t device) {
    if (init_count == 0) return 1;
    if (device < cards || device >= cards + card_count) return 2;
    return injected(function, (int) (device - cards));
}

static int is_mig(nvmlDevice_t device) { return device >= migs && device < migs + mig_count; }

/* A call that takes a card or a MIG device, as nvmlDeviceGetUUID and nvmlDeviceGetMemoryInfo do; failures injected
 * for a card hold for its MIG devices too. */
static nvmlReturn_t enter_any(const char *function, nvmlDevice_t device) {
    if (init_count == 0) return 1;
    if (is_mig(device)) return injected(function, device->parent);
    return enter(function, device);
}

static int free_link(struct card *c) {
    for (int l = 0; l < MAX_LINKS; l++) if (!c->links[l].used) return l;
    return -1;
}

static int add_links(int a, int kind, int remote, int lanes) {
    for (int n = 0; n < lanes; n++) {
        int l = free_link(&cards[a]);
        if (l < 0) return -1;
        cards[a].links[l] = (struct link) {1, 1, kind, remote};
    }
    return 0;
}

static int known(int card) { return card >= 0 && card < card_count; }

static int add_process(int card, unsigned int pid, unsigned long long used_bytes, int lists) {
    if (process_count == MAX_PROCESSES) return -1;
    processes[process_count++] = (struct process) {card, lists, pid, used_bytes};
    return 0;
}

static int process_directive(char *line) {
    int card, rest = 0;
    unsigned int pid;
    char used[32], lists[16] = "compute";
    if (sscanf(line, " process %d %u %31s %n", &card, &pid, used, &rest) != 3 || !known(card)) return -1;
    if (line[rest] != 0 && sscanf(line + rest, "%15s", lists) != 1) return -1;
    int in = strcmp(lists, "compute") == 0 ? IN_COMPUTE : strcmp(lists, "mps") == 0 ? IN_MPS
            : strcmp(lists, "both") == 0 ? IN_COMPUTE | IN_MPS : 0;
    if (in == 0) return -1;
    if (strcmp(used, "na") == 0) return add_process(card, pid, NOT_AVAILABLE, in);
    char *end;
    unsigned long long mib = strtoull(used, &end, 10);
    return *end != 0 ? -1 : add_process(card, pid, mib << 20, in);
}

static int mig_directive(char *line) {
    int card;
    unsigned int gi, ci, start, size, gi_slices, ci_slices, memory;
    char uuid[96];
    if (sscanf(line, " mig %d %u %u %u %u %u %u %u %95s", &card, &gi, &ci, &start, &size, &gi_slices, &ci_slices,
               &memory, uuid) != 9 || !known(card) || mig_count == MAX_MIGS) return -1;
    struct card *m = &migs[mig_count++];
    memset(m, 0, sizeof *m);
    snprintf(m->uuid, sizeof m->uuid, "%s", uuid);
    snprintf(m->name, sizeof m->name, "%s", cards[card].name);
    m->parent = card, m->gi = gi, m->ci = ci, m->start = start, m->size = size;
    m->gi_slices = gi_slices, m->ci_slices = ci_slices, m->memory_mib = memory;
    return 0;
}

/* The directives of the node itself; nvmlStubUpdate cannot change them. */
static int fixed(const char *word) {
    static const char *words[] = {"driver", "card", "topo", "nvlink", "nvswitch", "down", "events", "migmode", "mig"};
    for (size_t i = 0; i < sizeof words / sizeof words[0]; i++) if (strcmp(word, words[i]) == 0) return 1;
    return 0;
}

static int directive(char *line, int update) {
    char word[64], first[96], second[32];
    int a, b, c, d, e, f, rest;
    unsigned int u, sm, mem;
    unsigned long long ull;
    if (sscanf(line, " %63s", word) != 1 || word[0] == '#') return 0;
    if (update && fixed(word)) return -1;
    if (strcmp(word, "driver") == 0 && sscanf(line, " driver %79s", driver) == 1) return 0;
    if (strcmp(word, "card") == 0 && card_count < MAX_CARDS
            && sscanf(line, " card %95s %31s %d %d %d %d %n", first, second, &a, &b, &c, &d, &rest) == 6) {
        struct card *k = &cards[card_count];
        snprintf(k->uuid, sizeof k->uuid, "%s", first);
        snprintf(k->bus_id, sizeof k->bus_id, "%s", second);
        snprintf(k->name, sizeof k->name, "%s", line + rest);
        k->name[strcspn(k->name, "\r\n")] = 0;
        if (sscanf(second, "%*x:%x:", &k->bus) != 1) return -1;
        k->minor = a, k->numa = b, k->mig = k->mig_pending = c, k->memory_mib = d, k->event_mask = 0xa;
        card_count++;
        return 0;
    }
    if (sscanf(line, " topo %d %d %d", &a, &b, &c) == 3 && known(a) && known(b)) {
        topo[a][b] = topo[b][a] = c;
        return 0;
    }
    if (sscanf(line, " nvlink %d %d %d", &a, &b, &c) == 3 && known(a) && known(b) && a != b) {
        return add_links(a, LINK_TO_GPU, b, c) | add_links(b, LINK_TO_GPU, a, c);
    }
    if (sscanf(line, " nvswitch %d %d %d", &a, &b, &c) == 3 && known(a) && b >= 0) {
        return add_links(a, LINK_TO_SWITCH, b, c);
    }
    if (sscanf(line, " down %d %d", &a, &b) == 2 && known(a) && b >= 0 && b < MAX_LINKS) {
        cards[a].links[b].active = 0;
        return 0;
    }
    if (sscanf(line, " events %d %i", &a, &u) == 2 && known(a)) {
        cards[a].event_mask = u;
        return 0;
    }
    if (sscanf(line, " migmode %d %d %d", &a, &b, &c) == 3 && known(a)) {
        cards[a].mig = b, cards[a].mig_pending = c;
        return 0;
    }
    if (strcmp(word, "mig") == 0) return mig_directive(line);
    if (strcmp(word, "process") == 0) return process_directive(line);
    if (sscanf(line, " spawn %d %u", &a, &u) == 2 && known(a)) {
        cards[a].spawn = u;
        return 0;
    }
    if (sscanf(line, " util %d %u %u %u %llu", &a, &u, &sm, &mem, &ull) == 5 && known(a)
            && sample_count < MAX_SAMPLES) {
        samples[sample_count++] = (struct sample) {a, {u, ull, sm, mem, 0, 0}};
        return 0;
    }
    if (sscanf(line, " computemode %d %d", &a, &b) == 2 && known(a)) {
        cards[a].compute_mode = b;
        return 0;
    }
    if (sscanf(line, " fail %63s %d %d", word, &e, &f) == 3 && fail_count < MAX_FAILS) {
        snprintf(fails[fail_count].function, sizeof fails[0].function, "%s", word);
        fails[fail_count].card = e, fails[fail_count].rc = f;
        fail_count++;
        return 0;
    }
    return -1;
}

static int read_config(const char *path, int update) {
    FILE *in = fopen(path, "r");
    if (in == NULL) return -1;
    pthread_mutex_lock(&lock);
    if (!update) {
        memset(cards, 0, sizeof cards);
        card_count = init_count = event_sets = queued = mig_count = 0;
        for (int a = 0; a < MAX_CARDS; a++) for (int b = 0; b < MAX_CARDS; b++) topo[a][b] = 50;
        snprintf(driver, sizeof driver, "%s", "570.86.15");
    }
    fail_count = process_count = sample_count = 0;
    for (int c = 0; c < card_count; c++) cards[c].spawn = 0, cards[c].compute_mode = 0;
    char line[512];
    int number = 0, bad = 0;
    while (!bad && fgets(line, sizeof line, in) != NULL) {
        number++;
        if (directive(line, update) != 0) bad = number;
    }
    pthread_mutex_unlock(&lock);
    fclose(in);
    if (bad) fprintf(stderr, "nvml stub: %s:%d: cannot understand: %s", path, bad, line);
    return bad;
}

/* (Re)reads the configuration and forgets everything else, init count and queued events included. 0, or the line
 * number that could not be understood. */
int nvmlStubConfigure(const char *path) { return read_config(path, 0); }

/* Replaces the processes, samples, spawn counts, compute modes and failures with the file's, keeping the cards,
 * NVML's init count, event sets and queued events. 0, or the line number that could not be understood. */
int nvmlStubUpdate(const char *path) { return read_config(path, 1); }

int nvmlStubInitCount(void) { return init_count; }

int nvmlStubEventSets(void) { return event_sets; }

static void push(struct event e) {
    pthread_mutex_lock(&lock);
    if (queued < MAX_QUEUE) queue[queued++] = e;
    pthread_cond_broadcast(&arrived);
    pthread_mutex_unlock(&lock);
}

void nvmlStubEmit(int card, unsigned long long type, unsigned long long data) {
    push((struct event) {card, type, data, 0});
}

/* The next wait returns rc with the device of `card` filled in (none for -1), as a card falling off the bus does. */
void nvmlStubEmitError(int card, int rc) { push((struct event) {card, 0, 0, rc}); }

nvmlReturn_t nvmlInit_v2(void) {
    /* A program that loads the stub by name (a rehearsal of a GPU check) configures it through the environment. */
    const char *config = getenv("NVML_STUB_CONFIG");
    if (card_count == 0 && config != NULL && *config) read_config(config, 0);
    nvmlReturn_t rc = injected("nvmlInit_v2", -1);
    if (rc == 0) init_count++;
    return rc;
}

nvmlReturn_t nvmlShutdown(void) {
    if (init_count == 0) return 1;
    init_count--;
    return 0;
}

const char *nvmlErrorString(nvmlReturn_t rc) {
    switch (rc) {
        case 0: return "Success";
        case 1: return "Uninitialized";
        case 2: return "Invalid Argument";
        case 3: return "Not Supported";
        case 4: return "Insufficient Permissions";
        case 6: return "Not Found";
        case 7: return "Insufficient Size";
        case 9: return "Driver Not Loaded";
        case 10: return "Timeout";
        case 13: return "Function Not Found";
        case 15: return "GPU is lost";
        default: return "Unknown Error";
    }
}

nvmlReturn_t nvmlSystemGetDriverVersion(char *version, unsigned int length) {
    if (init_count == 0) return 1;
    nvmlReturn_t rc = injected("nvmlSystemGetDriverVersion", -1);
    if (rc == 0) snprintf(version, length, "%s", driver);
    return rc;
}

nvmlReturn_t nvmlDeviceGetCount_v2(unsigned int *count) {
    if (init_count == 0) return 1;
    nvmlReturn_t rc = injected("nvmlDeviceGetCount_v2", -1);
    if (rc == 0) *count = card_count;
    return rc;
}

nvmlReturn_t nvmlDeviceGetHandleByIndex_v2(unsigned int index, nvmlDevice_t *device) {
    if (init_count == 0) return 1;
    if (index >= (unsigned int) card_count) return 2;
    nvmlReturn_t rc = injected("nvmlDeviceGetHandleByIndex_v2", index);
    if (rc == 0) *device = &cards[index];
    return rc;
}

nvmlReturn_t nvmlDeviceGetUUID(nvmlDevice_t d, char *uuid, unsigned int length) {
    nvmlReturn_t rc = enter_any("nvmlDeviceGetUUID", d);
    if (rc == 0) snprintf(uuid, length, "%s", d->uuid);
    return rc;
}

nvmlReturn_t nvmlDeviceGetName(nvmlDevice_t d, char *name, unsigned int length) {
    nvmlReturn_t rc = enter("nvmlDeviceGetName", d);
    if (rc == 0) snprintf(name, length, "%s", d->name);
    return rc;
}

nvmlReturn_t nvmlDeviceGetMemoryInfo(nvmlDevice_t d, nvmlMemory_t *memory) {
    nvmlReturn_t rc = enter_any("nvmlDeviceGetMemoryInfo", d);
    if (rc == 0) {
        memory->total = (unsigned long long) d->memory_mib << 20;
        memory->used = 1ULL << 20;
        memory->free = memory->total - memory->used;
    }
    return rc;
}

static void pci_info(nvmlPciInfo_t *pci, unsigned int bus, const char *bus_id) {
    memset(pci, 0, sizeof *pci);
    pci->bus = bus;
    pci->pciDeviceId = 0x20b210de;
    snprintf(pci->busId, sizeof pci->busId, "%s", bus_id);
    snprintf(pci->busIdLegacy, sizeof pci->busIdLegacy, "0000:%02X:00.0", bus);
}

nvmlReturn_t nvmlDeviceGetPciInfo_v3(nvmlDevice_t d, nvmlPciInfo_t *pci) {
    nvmlReturn_t rc = enter("nvmlDeviceGetPciInfo_v3", d);
    if (rc == 0) pci_info(pci, d->bus, d->bus_id);
    return rc;
}

nvmlReturn_t nvmlDeviceGetMinorNumber(nvmlDevice_t d, unsigned int *minor) {
    nvmlReturn_t rc = enter("nvmlDeviceGetMinorNumber", d);
    if (rc == 0) *minor = d->minor;
    return rc;
}

nvmlReturn_t nvmlDeviceGetMigMode(nvmlDevice_t d, unsigned int *current, unsigned int *pending) {
    nvmlReturn_t rc = enter("nvmlDeviceGetMigMode", d);
    if (rc == 0) *current = d->mig, *pending = d->mig_pending;
    return rc;
}

/* Zero when MIG is off, as NVML says of a card not in MIG mode. */
nvmlReturn_t nvmlDeviceGetMaxMigDeviceCount(nvmlDevice_t d, unsigned int *count) {
    nvmlReturn_t rc = enter("nvmlDeviceGetMaxMigDeviceCount", d);
    if (rc == 0) *count = d->mig ? MIGS_PER_CARD : 0;
    return rc;
}

/* INVALID_ARGUMENT past the card's last index, NOT_FOUND where no MIG device is, NOT_SUPPORTED with MIG off. */
nvmlReturn_t nvmlDeviceGetMigDeviceHandleByIndex(nvmlDevice_t d, unsigned int index, nvmlDevice_t *mig) {
    nvmlReturn_t rc = enter("nvmlDeviceGetMigDeviceHandleByIndex", d);
    if (rc != 0) return rc;
    if (!d->mig) return 3;
    if (index >= MIGS_PER_CARD) return 2;
    unsigned int n = 0;
    for (int i = 0; i < mig_count; i++) {
        if (migs[i].parent == d - cards && n++ == index) {
            *mig = &migs[i];
            return 0;
        }
    }
    return NOT_FOUND;
}

/* NOT_SUPPORTED for a card that is not a MIG device, as NVML says. */
nvmlReturn_t nvmlDeviceGetGpuInstanceId(nvmlDevice_t d, unsigned int *id) {
    nvmlReturn_t rc = enter_any("nvmlDeviceGetGpuInstanceId", d);
    if (rc == 0 && !is_mig(d)) rc = 3;
    if (rc == 0) *id = d->gi;
    return rc;
}

nvmlReturn_t nvmlDeviceGetComputeInstanceId(nvmlDevice_t d, unsigned int *id) {
    nvmlReturn_t rc = enter_any("nvmlDeviceGetComputeInstanceId", d);
    if (rc == 0 && !is_mig(d)) rc = 3;
    if (rc == 0) *id = d->ci;
    return rc;
}

/* A MIG device's slices and memory; a card's memory with no slices. 16 SMs a compute slice, as on an H100. */
nvmlReturn_t nvmlDeviceGetAttributes_v2(nvmlDevice_t d, nvmlDeviceAttributes_t *attributes) {
    nvmlReturn_t rc = enter_any("nvmlDeviceGetAttributes_v2", d);
    if (rc != 0) return rc;
    memset(attributes, 0, sizeof *attributes);
    attributes->multiprocessorCount = is_mig(d) ? 16 * d->ci_slices : 132;
    attributes->gpuInstanceSliceCount = d->gi_slices;
    attributes->computeInstanceSliceCount = d->ci_slices;
    attributes->memorySizeMB = d->memory_mib;
    return 0;
}

/* NOT_SUPPORTED with MIG off, NOT_FOUND for an id no MIG device of the card has. Profile ids are not modelled. */
nvmlReturn_t nvmlDeviceGetGpuInstanceById(nvmlDevice_t d, unsigned int id, nvmlGpuInstance_t *instance) {
    nvmlReturn_t rc = enter("nvmlDeviceGetGpuInstanceById", d);
    if (rc != 0) return rc;
    if (!d->mig) return 3;
    for (int i = 0; i < mig_count; i++) {
        if (migs[i].parent == d - cards && migs[i].gi == id) {
            gpu_instances[i] = (struct gpu_instance) {migs[i].parent, id, migs[i].start, migs[i].size};
            *instance = &gpu_instances[i];
            return 0;
        }
    }
    return NOT_FOUND;
}

nvmlReturn_t nvmlGpuInstanceGetInfo(nvmlGpuInstance_t instance, nvmlGpuInstanceInfo_t *info) {
    if (init_count == 0) return 1;
    if (instance < gpu_instances || instance >= gpu_instances + mig_count) return 2;
    nvmlReturn_t rc = injected("nvmlGpuInstanceGetInfo", instance->card);
    if (rc == 0) *info = (nvmlGpuInstanceInfo_t) {&cards[instance->card], instance->id, 0, instance->start,
                                                  instance->size};
    return rc;
}

nvmlReturn_t nvmlDeviceGetNumaNodeId(nvmlDevice_t d, unsigned int *node) {
    nvmlReturn_t rc = enter("nvmlDeviceGetNumaNodeId", d);
    if (rc == 0 && d->numa < 0) rc = 3; /* what a driver without NUMA information says */
    if (rc == 0) *node = d->numa;
    return rc;
}

nvmlReturn_t nvmlDeviceGetTopologyCommonAncestor(nvmlDevice_t a, nvmlDevice_t b, int *level) {
    nvmlReturn_t rc = enter("nvmlDeviceGetTopologyCommonAncestor", a);
    if (rc == 0) rc = enter("nvmlDeviceGetTopologyCommonAncestor", b);
    if (rc == 0) *level = topo[a - cards][b - cards];
    return rc;
}

/* A card without NVLink says NOT_SUPPORTED for link 0; past a card's last link the driver says INVALID_ARGUMENT. */
static nvmlReturn_t link_of(const char *function, nvmlDevice_t d, unsigned int link, struct link **out) {
    nvmlReturn_t rc = enter(function, d);
    if (rc != 0) return rc;
    if (!d->links[0].used) return 3;
    if (link >= MAX_LINKS || !d->links[link].used) return 2;
    *out = &d->links[link];
    return 0;
}

nvmlReturn_t nvmlDeviceGetNvLinkState(nvmlDevice_t d, unsigned int link, int *active) {
    struct link *l;
    nvmlReturn_t rc = link_of("nvmlDeviceGetNvLinkState", d, link, &l);
    if (rc == 0) *active = l->active;
    return rc;
}

nvmlReturn_t nvmlDeviceGetNvLinkRemotePciInfo_v2(nvmlDevice_t d, unsigned int link, nvmlPciInfo_t *pci) {
    struct link *l;
    nvmlReturn_t rc = link_of("nvmlDeviceGetNvLinkRemotePciInfo_v2", d, link, &l);
    if (rc != 0) return rc;
    if (l->kind == LINK_TO_GPU) {
        pci_info(pci, cards[l->remote].bus, cards[l->remote].bus_id);
    } else {
        char id[32];
        snprintf(id, sizeof id, "00000000:%02X:00.0", 0xC0 + l->remote);
        pci_info(pci, 0xC0 + l->remote, id);
    }
    return 0;
}

nvmlReturn_t nvmlDeviceGetNvLinkRemoteDeviceType(nvmlDevice_t d, unsigned int link, int *type) {
    struct link *l;
    nvmlReturn_t rc = link_of("nvmlDeviceGetNvLinkRemoteDeviceType", d, link, &l);
    if (rc == 0) *type = l->kind;
    return rc;
}

nvmlReturn_t nvmlEventSetCreate(nvmlEventSet_t *set) {
    if (init_count == 0) return 1;
    nvmlReturn_t rc = injected("nvmlEventSetCreate", -1);
    if (rc == 0) {
        *set = calloc(1, sizeof(struct event_set));
        event_sets++;
    }
    return rc;
}

nvmlReturn_t nvmlDeviceRegisterEvents(nvmlDevice_t d, unsigned long long types, nvmlEventSet_t set) {
    nvmlReturn_t rc = enter("nvmlDeviceRegisterEvents", d);
    if (rc == 0 && (types & ~(unsigned long long) d->event_mask) != 0) rc = 3;
    if (rc == 0) set->mask[d - cards] |= types;
    return rc;
}

nvmlReturn_t nvmlEventSetWait_v2(nvmlEventSet_t set, nvmlEventData_t *data, unsigned int timeout_ms) {
    if (init_count == 0) return 1;
    struct timespec deadline;
    clock_gettime(CLOCK_REALTIME, &deadline);
    deadline.tv_sec += timeout_ms / 1000;
    deadline.tv_nsec += (long) (timeout_ms % 1000) * 1000000L;
    if (deadline.tv_nsec >= 1000000000L) deadline.tv_sec++, deadline.tv_nsec -= 1000000000L;
    pthread_mutex_lock(&lock);
    for (;;) {
        while (queued > 0) {
            struct event e = queue[0];
            memmove(queue, queue + 1, --queued * sizeof queue[0]);
            int known = e.card >= 0 && e.card < card_count;
            if (e.rc == 0 && !(known && (set->mask[e.card] & e.type))) continue; /* not registered: not delivered */
            memset(data, 0, sizeof *data);
            data->device = known ? &cards[e.card] : NULL;
            data->eventType = e.type;
            data->eventData = e.data;
            pthread_mutex_unlock(&lock);
            return e.rc;
        }
        if (pthread_cond_timedwait(&arrived, &lock, &deadline) != 0 && queued == 0) break;
    }
    pthread_mutex_unlock(&lock);
    return 10;
}

nvmlReturn_t nvmlEventSetFree(nvmlEventSet_t set) {
    if (init_count == 0) return 1;
    free(set);
    event_sets--;
    return 0;
}

/* The process list `in` of a card, with the real protocol: *count in is the room in infos, out the processes listed,
 * or the room needed along with INSUFFICIENT_SIZE (then `spawn` more processes start). Called under the lock, as
 * nvmlStubUpdate may replace the processes meanwhile. */
static nvmlReturn_t listed(nvmlDevice_t d, int in, unsigned int *count, nvmlProcessInfo_t *infos) {
    int card = (int) (d - cards);
    unsigned int n = 0;
    for (int i = 0; i < process_count; i++) n += processes[i].card == card && (processes[i].lists & in);
    if (n > *count) {
        *count = n;
        for (unsigned int k = 0; k < d->spawn; k++) add_process(card, 100000 + process_count, 1ULL << 20, IN_COMPUTE);
        return INSUFFICIENT_SIZE;
    }
    n = 0;
    for (int i = 0; i < process_count; i++) {
        if (processes[i].card != card || !(processes[i].lists & in)) continue;
        infos[n++] = (nvmlProcessInfo_t) {processes[i].pid, processes[i].used_bytes, 0xFFFFFFFF, 0xFFFFFFFF};
    }
    *count = n;
    return 0;
}

/* Unused in the build without process lists. */
__attribute__((unused)) static nvmlReturn_t process_list(const char *function, nvmlDevice_t d, int in,
                                                         unsigned int *count, nvmlProcessInfo_t *infos) {
    nvmlReturn_t rc = enter(function, d);
    if (rc != 0) return rc;
    if (count == NULL || (*count > 0 && infos == NULL)) return 2;
    pthread_mutex_lock(&lock);
    rc = listed(d, in, count, infos);
    pthread_mutex_unlock(&lock);
    return rc;
}

#ifndef NVML_STUB_WITHOUT_V3
nvmlReturn_t nvmlDeviceGetComputeRunningProcesses_v3(nvmlDevice_t d, unsigned int *count, nvmlProcessInfo_t *infos) {
    return process_list("nvmlDeviceGetComputeRunningProcesses_v3", d, IN_COMPUTE, count, infos);
}

nvmlReturn_t nvmlDeviceGetMPSComputeRunningProcesses_v3(nvmlDevice_t d, unsigned int *count, nvmlProcessInfo_t *infos) {
    return process_list("nvmlDeviceGetMPSComputeRunningProcesses_v3", d, IN_MPS, count, infos);
}
#endif

#ifndef NVML_STUB_WITHOUT_V2
nvmlReturn_t nvmlDeviceGetComputeRunningProcesses_v2(nvmlDevice_t d, unsigned int *count, nvmlProcessInfo_t *infos) {
    return process_list("nvmlDeviceGetComputeRunningProcesses_v2", d, IN_COMPUTE, count, infos);
}

nvmlReturn_t nvmlDeviceGetMPSComputeRunningProcesses_v2(nvmlDevice_t d, unsigned int *count, nvmlProcessInfo_t *infos) {
    return process_list("nvmlDeviceGetMPSComputeRunningProcesses_v2", d, IN_MPS, count, infos);
}
#endif

/* Samples newer than lastSeen, in the order configured; a NULL buffer asks how many (INSUFFICIENT_SIZE), none at all
 * is NOT_FOUND, as the driver says when nothing ran since lastSeen. */
static nvmlReturn_t sampled(nvmlDevice_t d, nvmlProcessUtilizationSample_t *utilization, unsigned int *count,
                            unsigned long long lastSeen) {
    int card = (int) (d - cards);
    unsigned int n = 0;
    for (int i = 0; i < sample_count; i++) n += samples[i].card == card && samples[i].value.timeStamp > lastSeen;
    if (n == 0) return NOT_FOUND;
    if (utilization == NULL || n > *count) {
        *count = n;
        return INSUFFICIENT_SIZE;
    }
    n = 0;
    for (int i = 0; i < sample_count; i++) {
        if (samples[i].card == card && samples[i].value.timeStamp > lastSeen) utilization[n++] = samples[i].value;
    }
    *count = n;
    return 0;
}

nvmlReturn_t nvmlDeviceGetProcessUtilization(nvmlDevice_t d, nvmlProcessUtilizationSample_t *utilization,
                                             unsigned int *count, unsigned long long lastSeen) {
    nvmlReturn_t rc = enter("nvmlDeviceGetProcessUtilization", d);
    if (rc != 0) return rc;
    if (count == NULL) return 2;
    pthread_mutex_lock(&lock);
    rc = sampled(d, utilization, count, lastSeen);
    pthread_mutex_unlock(&lock);
    return rc;
}

nvmlReturn_t nvmlDeviceGetComputeMode(nvmlDevice_t d, nvmlComputeMode_t *mode) {
    nvmlReturn_t rc = enter("nvmlDeviceGetComputeMode", d);
    if (rc != 0) return rc;
    pthread_mutex_lock(&lock);
    *mode = d->compute_mode;
    pthread_mutex_unlock(&lock);
    return 0;
}
