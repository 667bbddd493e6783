/*
 * gaudisim: the NIC fabric of one box, a user-creatable QOM object.
 *
 *   -object gaudisim-fabric,id=fab0
 *   -device gaudisim,module-id=0,fabric=fab0
 *   -device gaudisim,module-id=1,fabric=fab0
 *
 * The devices attach their cores to the fabric at realize (ports 0..6
 * all-to-all, core/gsim_fabric.h). Fault injection goes through QMP:
 *
 *   qom-set fab0 link-cut "MODULE:PORT"      cut that cable (both ends)
 *   qom-set fab0 link-restore "MODULE:PORT"  plug it back
 *   qom-get fab0 link-cut                    the cut cables, "0:1 3:4"
 *
 * A change raises NIC_LINK events on both devices.
 *
 * Scale-out: with chardev=ID (a socket chardev) ports 7..9 of every module
 * are cabled to the same ports and modules of the box at the other end:
 *
 *   box A: -chardev socket,id=so0,path=S,server=on,wait=off
 *          -object gaudisim-fabric,id=fab0,chardev=so0
 *   box B: -chardev socket,id=so0,path=S
 *          -object gaudisim-fabric,id=fab0,chardev=so0
 *
 * The protocol is a stream of frames, each a little-endian header: a
 * WRITE carries a port's transfer and its payload, the ANSWER that comes
 * back its result (GAUDISIM_NIC_ERR_*). A write whose answer does not
 * come within timeout-ms fails with LINK_DOWN, as do the writes on a
 * cable that disconnects, so a dead peer never hangs the sender. Output
 * goes through a queue flushed when the chardev can take it, never with
 * a blocking write: two boxes sending to each other at once do not stall.
 *
 * Everything runs with the BQL held, the single owner the core's fabric
 * asks for.
 *
 * SPDX-License-Identifier: MIT
 */

#include "qemu/osdep.h"
#include "qemu/bswap.h"
#include "qemu/cutils.h"
#include "qemu/log.h"
#include "qemu/timer.h"
#include "qemu/units.h"
#include "qemu/error-report.h"
#include "system/system.h"
#include "qapi/error.h"
#include "qom/object_interfaces.h"
#include "chardev/char-fe.h"
#include "trace.h"

#include "hw/gaudisim_hw_nic.h"
#include "gaudisim-fabric.h"
#include "core/gsim_fabric.h"

#define GAUDISIM_FABRIC_MAGIC       0x464e5347u     /* "GSNF" */
#define GAUDISIM_FABRIC_TIMEOUT_MS  5000u
#define GAUDISIM_SCALEOUT_PORTS \
    (GAUDISIM_NIC_NUM_PORTS - GAUDISIM_NIC_FIRST_SCALEOUT)

enum {
    GAUDISIM_FRAME_WRITE = 1,   /* header, then size bytes of payload */
    GAUDISIM_FRAME_ANSWER = 2,  /* header only; status is the result */
};

/* On the wire: every field little-endian. */
typedef struct QEMU_PACKED GaudisimFrame {
    uint32_t magic;
    uint8_t type;
    uint8_t module;
    uint8_t port;
    uint8_t pad;
    uint64_t tag;
    uint64_t dst;
    uint32_t size;
    uint32_t sob;
    uint32_t sob_data;
    uint32_t src_module;
    uint32_t status;
    uint32_t pad2;
} GaudisimFrame;

typedef struct GaudisimFabricWait {
    GaudisimFabric *fab;
    unsigned int module, port;
    uint64_t tag;               /* the write waiting for its answer, 0: none */
    QEMUTimer *timer;
} GaudisimFabricWait;

struct GaudisimFabric {
    Object parent_obj;

    struct gsim_fabric *fabric;

    /* Scale-out cable (chardev=): see the top of the file. */
    char *chardev;
    uint32_t timeout_ms;
    CharBackend chr;
    bool cabled;                /* chardev given and set up */
    Notifier init_done;         /* plugs the cable in after machine init */
    GByteArray *out;            /* bytes the chardev did not take yet */
    guint out_watch;
    GaudisimFrame in_hdr;       /* frame being received ... */
    size_t in_hdr_len;
    uint8_t *in_payload;        /* ... and its payload */
    size_t in_payload_len;
    GaudisimFabricWait wait[GAUDISIM_NIC_MAX_MODULES][GAUDISIM_SCALEOUT_PORTS];
};

struct gsim_fabric *gaudisim_fabric_core(GaudisimFabric *fab)
{
    return fab->fabric;
}

/* "MODULE:PORT" -> numbers, with a clear error for anything else. */
static bool gaudisim_fabric_parse(const char *name, const char *value,
                                  unsigned int *module, unsigned int *port,
                                  Error **errp)
{
    const char *end;
    uint64_t m, p;

    if (qemu_strtou64(value, &end, 10, &m) || *end != ':' ||
        qemu_strtou64(end + 1, NULL, 10, &p)) {
        error_setg(errp, "gaudisim-fabric: %s: '%s' is not MODULE:PORT",
                   name, value);
        return false;
    }
    if (m >= GAUDISIM_NIC_MAX_MODULES || p >= GAUDISIM_NIC_NUM_PORTS) {
        error_setg(errp, "gaudisim-fabric: %s: module %" PRIu64 " port %"
                   PRIu64 " does not exist (modules 0..%d, ports 0..%d)",
                   name, m, p, GAUDISIM_NIC_MAX_MODULES - 1,
                   GAUDISIM_NIC_NUM_PORTS - 1);
        return false;
    }
    *module = m;
    *port = p;
    return true;
}

static void gaudisim_fabric_set(GaudisimFabric *fab, const char *name,
                                const char *value, bool up, Error **errp)
{
    unsigned int module, port;

    if (!gaudisim_fabric_parse(name, value, &module, &port, errp)) {
        return;
    }
    trace_gaudisim_fabric_link(module, port, up);
    gsim_fabric_set_link(fab->fabric, module, port, up);
}

static void gaudisim_fabric_set_cut(Object *obj, const char *value,
                                    Error **errp)
{
    gaudisim_fabric_set(GAUDISIM_FABRIC(obj), "link-cut", value, false, errp);
}

static void gaudisim_fabric_set_restore(Object *obj, const char *value,
                                        Error **errp)
{
    gaudisim_fabric_set(GAUDISIM_FABRIC(obj), "link-restore", value, true,
                        errp);
}

/* Every cut cable once, named by its lower end. */
static char *gaudisim_fabric_get_cut(Object *obj, Error **errp)
{
    GaudisimFabric *fab = GAUDISIM_FABRIC(obj);
    GString *s = g_string_new("");
    unsigned int m, p;

    for (m = 0; m < GAUDISIM_NIC_MAX_MODULES; m++) {
        for (p = 0; p < GAUDISIM_NIC_NUM_PORTS; p++) {
            int peer = gaudisim_nic_intra_peer(m, p);

            if (!gsim_fabric_link_cut(fab->fabric, m, p) ||
                (peer >= 0 && (unsigned int)peer < m)) {
                continue;
            }
            g_string_append_printf(s, "%s%u:%u", s->len ? " " : "", m, p);
        }
    }
    return g_string_free(s, false);
}

static char *gaudisim_fabric_get_restore(Object *obj, Error **errp)
{
    return g_strdup("");
}

/* ---- scale-out cable */

static gboolean gaudisim_fabric_writable(void *do_not_use, GIOCondition cond,
                                         void *opaque);

/* Hand queued bytes to the chardev; wait for room when it takes no more. */
static void gaudisim_fabric_flush(GaudisimFabric *fab)
{
    while (fab->out->len) {
        int n = qemu_chr_fe_write(&fab->chr, fab->out->data, fab->out->len);

        if (n <= 0) {
            break;
        }
        g_byte_array_remove_range(fab->out, 0, n);
    }
    if (fab->out->len && !fab->out_watch) {
        fab->out_watch = qemu_chr_fe_add_watch(&fab->chr, G_IO_OUT | G_IO_HUP,
                                               gaudisim_fabric_writable, fab);
    }
}

static gboolean gaudisim_fabric_writable(void *do_not_use, GIOCondition cond,
                                         void *opaque)
{
    GaudisimFabric *fab = opaque;

    fab->out_watch = 0;
    gaudisim_fabric_flush(fab);
    return G_SOURCE_REMOVE;
}

static void gaudisim_fabric_queue(GaudisimFabric *fab, const GaudisimFrame *h,
                                  const void *payload, uint32_t size)
{
    g_byte_array_append(fab->out, (const guint8 *)h, sizeof(*h));
    if (size) {
        g_byte_array_append(fab->out, payload, size);
    }
    gaudisim_fabric_flush(fab);
}

static int gaudisim_fabric_send(void *opaque, unsigned int module,
                                unsigned int port, uint64_t tag,
                                const struct gsim_fabric_write *w,
                                const void *payload)
{
    GaudisimFabric *fab = opaque;
    GaudisimFabricWait *wt =
        &fab->wait[module][port - GAUDISIM_NIC_FIRST_SCALEOUT];
    GaudisimFrame h = {
        .magic = cpu_to_le32(GAUDISIM_FABRIC_MAGIC),
        .type = GAUDISIM_FRAME_WRITE,
        .module = module,
        .port = port,
        .tag = cpu_to_le64(tag),
        .dst = cpu_to_le64(w->dst),
        .size = cpu_to_le32(w->size),
        .sob = cpu_to_le32(w->sob),
        .sob_data = cpu_to_le32(w->sob_data),
        .src_module = cpu_to_le32(w->src_module),
    };

    if (!qemu_chr_fe_backend_open(&fab->chr)) {
        return -1;
    }
    trace_gaudisim_fabric_send(module, port, tag, w->size);
    gaudisim_fabric_queue(fab, &h, payload, w->size);
    wt->tag = tag;
    timer_mod(wt->timer,
              qemu_clock_get_ms(QEMU_CLOCK_REALTIME) + fab->timeout_ms);
    return 0;
}

static const struct gsim_fabric_remote_ops gaudisim_fabric_remote_ops = {
    .send = gaudisim_fabric_send,
};

/* No answer in time: the write fails instead of waiting for ever. */
static void gaudisim_fabric_timeout(void *opaque)
{
    GaudisimFabricWait *wt = opaque;
    uint64_t tag = wt->tag;

    wt->tag = 0;
    trace_gaudisim_fabric_answer(wt->module, wt->port, tag,
                                 GAUDISIM_NIC_ERR_LINK_DOWN);
    qemu_log_mask(LOG_GUEST_ERROR, "gaudisim-fabric: module %u port %u: no "
                  "answer from the other box in %u ms\n", wt->module,
                  wt->port, wt->fab->timeout_ms);
    gsim_fabric_remote_done(wt->fab->fabric, wt->module, wt->port, tag,
                            GAUDISIM_NIC_ERR_LINK_DOWN);
}

static void gaudisim_fabric_in_reset(GaudisimFabric *fab)
{
    g_free(fab->in_payload);
    fab->in_payload = NULL;
    fab->in_payload_len = 0;
    fab->in_hdr_len = 0;
}

/* A complete frame arrived. false: malformed, drop the connection. */
static bool gaudisim_fabric_frame(GaudisimFabric *fab)
{
    const GaudisimFrame *h = &fab->in_hdr;
    unsigned int module = h->module, port = h->port;
    struct gsim_fabric_write w = {
        .dst = le64_to_cpu(h->dst),
        .size = le32_to_cpu(h->size),
        .sob = le32_to_cpu(h->sob),
        .sob_data = le32_to_cpu(h->sob_data),
        .src_module = le32_to_cpu(h->src_module),
    };
    uint64_t tag = le64_to_cpu(h->tag);
    GaudisimFrame answer = {
        .magic = cpu_to_le32(GAUDISIM_FABRIC_MAGIC),
        .type = GAUDISIM_FRAME_ANSWER,
        .module = module,
        .port = port,
        .tag = h->tag,
    };
    GaudisimFabricWait *wt;
    int err;

    if (module >= GAUDISIM_NIC_MAX_MODULES ||
        port < GAUDISIM_NIC_FIRST_SCALEOUT || port >= GAUDISIM_NIC_NUM_PORTS) {
        return false;
    }
    if (h->type == GAUDISIM_FRAME_ANSWER) {
        wt = &fab->wait[module][port - GAUDISIM_NIC_FIRST_SCALEOUT];
        err = le32_to_cpu(h->status);
        trace_gaudisim_fabric_answer(module, port, tag, err);
        if (wt->tag == tag) {
            timer_del(wt->timer);
            wt->tag = 0;
        }
        gsim_fabric_remote_done(fab->fabric, module, port, tag, err);
        return true;
    }
    err = gsim_fabric_remote_receive(fab->fabric, module, port, &w,
                                     fab->in_payload);
    trace_gaudisim_fabric_receive(module, port, tag, w.size, err);
    answer.status = cpu_to_le32(err);
    gaudisim_fabric_queue(fab, &answer, NULL, 0);
    return true;
}

static int gaudisim_fabric_can_read(void *opaque)
{
    return 64 * KiB;
}

static void gaudisim_fabric_read(void *opaque, const uint8_t *buf, int size)
{
    GaudisimFabric *fab = opaque;

    while (size > 0) {
        size_t n;

        if (fab->in_hdr_len < sizeof(fab->in_hdr)) {
            n = MIN((size_t)size, sizeof(fab->in_hdr) - fab->in_hdr_len);
            memcpy((uint8_t *)&fab->in_hdr + fab->in_hdr_len, buf, n);
            fab->in_hdr_len += n;
            buf += n;
            size -= n;
            if (fab->in_hdr_len < sizeof(fab->in_hdr)) {
                return;
            }
            if (le32_to_cpu(fab->in_hdr.magic) != GAUDISIM_FABRIC_MAGIC ||
                (fab->in_hdr.type != GAUDISIM_FRAME_WRITE &&
                 fab->in_hdr.type != GAUDISIM_FRAME_ANSWER) ||
                le32_to_cpu(fab->in_hdr.size) > GAUDISIM_NIC_MAX_XFER ||
                (fab->in_hdr.type == GAUDISIM_FRAME_ANSWER &&
                 fab->in_hdr.size)) {
                goto bad;
            }
            if (fab->in_hdr.type == GAUDISIM_FRAME_WRITE) {
                fab->in_payload = g_malloc(le32_to_cpu(fab->in_hdr.size) + 1);
            }
        }
        n = MIN((size_t)size,
                le32_to_cpu(fab->in_hdr.size) - fab->in_payload_len);
        if (n) {
            memcpy(fab->in_payload + fab->in_payload_len, buf, n);
            fab->in_payload_len += n;
            buf += n;
            size -= n;
        }
        if (fab->in_payload_len < le32_to_cpu(fab->in_hdr.size)) {
            return;
        }
        if (!gaudisim_fabric_frame(fab)) {
            goto bad;
        }
        gaudisim_fabric_in_reset(fab);
    }
    return;

bad:
    qemu_log_mask(LOG_GUEST_ERROR, "gaudisim-fabric: malformed frame from "
                  "the other box, dropping the cable\n");
    gaudisim_fabric_in_reset(fab);
    qemu_chr_fe_disconnect(&fab->chr);
}

static void gaudisim_fabric_event(void *opaque, QEMUChrEvent event)
{
    GaudisimFabric *fab = opaque;
    unsigned int m, p;

    switch (event) {
    case CHR_EVENT_OPENED:
        trace_gaudisim_fabric_cable(true);
        gsim_fabric_remote_connected(fab->fabric, true);
        break;
    case CHR_EVENT_CLOSED:
        trace_gaudisim_fabric_cable(false);
        gaudisim_fabric_in_reset(fab);
        g_byte_array_set_size(fab->out, 0);
        for (m = 0; m < GAUDISIM_NIC_MAX_MODULES; m++) {
            for (p = 0; p < GAUDISIM_SCALEOUT_PORTS; p++) {
                timer_del(fab->wait[m][p].timer);
                fab->wait[m][p].tag = 0;
            }
        }
        /* Fails the writes still waiting for an answer. */
        gsim_fabric_remote_connected(fab->fabric, false);
        break;
    default:
        break;
    }
}

/*
 * Plug the cable in. -object creates the fabric before the chardevs
 * exist, so this waits for the end of machine init (or runs at once for
 * an object added later).
 */
static void gaudisim_fabric_plug(Notifier *n, void *data)
{
    GaudisimFabric *fab = container_of(n, GaudisimFabric, init_done);
    Error *err = NULL;
    Chardev *chr = qemu_chr_find(fab->chardev);

    if (!chr) {
        error_report("gaudisim-fabric: chardev '%s' not found", fab->chardev);
        exit(1);
    }
    if (!qemu_chr_fe_init(&fab->chr, chr, &err)) {
        error_reportf_err(err, "gaudisim-fabric: ");
        exit(1);
    }
    fab->cabled = true;
    gsim_fabric_set_remote(fab->fabric, &gaudisim_fabric_remote_ops, fab);
    qemu_chr_fe_set_handlers(&fab->chr, gaudisim_fabric_can_read,
                             gaudisim_fabric_read, gaudisim_fabric_event,
                             NULL, fab, NULL, true);
}

static void gaudisim_fabric_complete(UserCreatable *uc, Error **errp)
{
    GaudisimFabric *fab = GAUDISIM_FABRIC(uc);

    if (!fab->chardev) {
        return;
    }
    fab->init_done.notify = gaudisim_fabric_plug;
    qemu_add_machine_init_done_notifier(&fab->init_done);
}

static char *gaudisim_fabric_get_chardev(Object *obj, Error **errp)
{
    return g_strdup(GAUDISIM_FABRIC(obj)->chardev ?: "");
}

static void gaudisim_fabric_set_chardev(Object *obj, const char *value,
                                        Error **errp)
{
    GaudisimFabric *fab = GAUDISIM_FABRIC(obj);

    if (fab->chardev) {
        error_setg(errp, "gaudisim-fabric: chardev can only be set at "
                   "creation");
        return;
    }
    g_free(fab->chardev);
    fab->chardev = g_strdup(value);
}

static void gaudisim_fabric_init(Object *obj)
{
    GaudisimFabric *fab = GAUDISIM_FABRIC(obj);
    unsigned int m, p;

    fab->fabric = gsim_fabric_new();
    if (!fab->fabric) {
        /* A few hundred bytes: treat like any failed allocation. */
        abort();
    }
    fab->timeout_ms = GAUDISIM_FABRIC_TIMEOUT_MS;
    object_property_add_uint32_ptr(obj, "timeout-ms", &fab->timeout_ms,
                                   OBJ_PROP_FLAG_READWRITE);
    object_property_set_description(obj, "timeout-ms",
        "how long a scale-out write waits for its answer (ms)");
    fab->out = g_byte_array_new();
    for (m = 0; m < GAUDISIM_NIC_MAX_MODULES; m++) {
        for (p = 0; p < GAUDISIM_SCALEOUT_PORTS; p++) {
            GaudisimFabricWait *wt = &fab->wait[m][p];

            wt->fab = fab;
            wt->module = m;
            wt->port = GAUDISIM_NIC_FIRST_SCALEOUT + p;
            wt->timer = timer_new_ms(QEMU_CLOCK_REALTIME,
                                     gaudisim_fabric_timeout, wt);
        }
    }
}

static void gaudisim_fabric_finalize(Object *obj)
{
    GaudisimFabric *fab = GAUDISIM_FABRIC(obj);
    unsigned int m, p;

    if (fab->chardev && !fab->cabled) {
        qemu_remove_machine_init_done_notifier(&fab->init_done);
    }
    if (fab->cabled) {
        qemu_chr_fe_deinit(&fab->chr, false);
    }
    if (fab->out_watch) {
        g_source_remove(fab->out_watch);
    }
    for (m = 0; m < GAUDISIM_NIC_MAX_MODULES; m++) {
        for (p = 0; p < GAUDISIM_SCALEOUT_PORTS; p++) {
            timer_free(fab->wait[m][p].timer);
        }
    }
    gaudisim_fabric_in_reset(fab);
    g_byte_array_unref(fab->out);
    g_free(fab->chardev);
    /* Devices hold a reference through their link: none is attached. */
    gsim_fabric_free(fab->fabric);
    fab->fabric = NULL;
}

static void gaudisim_fabric_class_init(ObjectClass *oc, void *data)
{
    UserCreatableClass *ucc = USER_CREATABLE_CLASS(oc);

    ucc->complete = gaudisim_fabric_complete;
    object_class_property_add_str(oc, "chardev", gaudisim_fabric_get_chardev,
                                  gaudisim_fabric_set_chardev);
    object_class_property_set_description(oc, "chardev",
        "socket chardev that cables NIC ports 7..9 to another box");
    object_class_property_add_str(oc, "link-cut", gaudisim_fabric_get_cut,
                                  gaudisim_fabric_set_cut);
    object_class_property_set_description(oc, "link-cut",
        "set MODULE:PORT: cut that NIC cable (both ends); get: the cut "
        "cables, space-separated");
    object_class_property_add_str(oc, "link-restore",
                                  gaudisim_fabric_get_restore,
                                  gaudisim_fabric_set_restore);
    object_class_property_set_description(oc, "link-restore",
        "set MODULE:PORT: plug a cut NIC cable back");
}

static const TypeInfo gaudisim_fabric_types[] = {
    {
        .name = TYPE_GAUDISIM_FABRIC,
        .parent = TYPE_OBJECT,
        .instance_size = sizeof(GaudisimFabric),
        .instance_init = gaudisim_fabric_init,
        .instance_finalize = gaudisim_fabric_finalize,
        .class_init = gaudisim_fabric_class_init,
        .interfaces = (InterfaceInfo[]) {
            { TYPE_USER_CREATABLE },
            { }
        },
    },
};

DEFINE_TYPES(gaudisim_fabric_types)
