/* SPDX-License-Identifier: MIT */
/*
 * gaudisim device core: the NIC fabric, the links between devices.
 *
 * A fabric is one box (an HLS-1): up to GAUDISIM_NIC_MAX_MODULES device
 * cores attach to it with their module IDs, and their NIC ports 0..6 link
 * all-to-all (hw/gaudisim_hw_nic.h: gaudisim_nic_intra_peer()). A NIC port's
 * transfer writes the peer's HBM and updates one sync object of the
 * peer's sync manager; docs/nic.md has the whole model.
 *
 * Threading rule: every core attached to one fabric is owned by one
 * thread at a time, the same one (in QEMU: the BQL), and every function
 * here is called from it. A NIC transfer is delivered into the peer on
 * that thread, inside the sender's gsim_core_run(): the payload lands in
 * the peer's HBM first, then the sync-object update runs through the
 * peer's sync manager (which may fire the peer's monitors and wake its
 * streams; the peer's host is kicked through gsim_host_ops.kick() so it
 * calls gsim_core_run()), and only then does the sender's completion
 * message follow.
 */
#ifndef GSIM_FABRIC_H
#define GSIM_FABRIC_H

#include <stdbool.h>
#include <stdint.h>

struct gsim_core;
struct gsim_fabric;

struct gsim_fabric *gsim_fabric_new(void);
/* Detaches every core still attached. */
void gsim_fabric_free(struct gsim_fabric *f);
/*
 * Wire core as module_id (0..7): its ports 0..6 link all-to-all to the
 * other modules attached. 0, or -EINVAL (bad module ID, core already on
 * a fabric) / -EBUSY (module ID taken).
 */
int gsim_fabric_attach(struct gsim_fabric *f, struct gsim_core *core, unsigned int module_id);
/* Unplug core; its peers see their links to it go down. */
void gsim_fabric_detach(struct gsim_fabric *f, struct gsim_core *core);
/*
 * Fault injection: cut (up = false) or restore the link of port 'port' of
 * module 'module' (both ends). Both devices, when attached, get a NIC_LINK
 * event when the state changes. 0, or -EINVAL for a bad module or port.
 * A cut is a property of the cable: it stays while modules come and go.
 */
int gsim_fabric_set_link(struct gsim_fabric *f, unsigned int module, unsigned int port, bool up);
/* Whether that link is cut (false for bad arguments). */
bool gsim_fabric_link_cut(const struct gsim_fabric *f, unsigned int module, unsigned int port);

/*
 * ---- Scale-out: ports 7..9 to another box ---------------------------------
 *
 * A transport (QEMU: a chardev, gaudisim-fabric.c) cables port p of
 * module m in this box to port p of module m in the other one. A launch
 * on such a port hands the write to send() and completes later, when the
 * host calls gsim_fabric_remote_done() with the far end's answer (or a
 * timeout's LINK_DOWN); meanwhile the port's engine is busy. A write from
 * the far box is delivered with gsim_fabric_remote_receive(), whose
 * result the transport sends back. Same thread as everything else.
 */
struct gsim_fabric_write {
	uint64_t dst;		/* HBM address on the receiver */
	uint32_t size;		/* payload bytes */
	uint32_t sob;		/* TX_REMOTE_SOB: [31] enable, [10:0] index */
	uint32_t sob_data;	/* so_upd word */
	uint32_t src_module;
};

struct gsim_fabric_remote_ops {
	/*
	 * Send a write of (module, port); the payload is only valid during
	 * the call. tag identifies it in gsim_fabric_remote_done(). 0, or -1
	 * when it cannot be sent (the launch fails with LINK_DOWN).
	 */
	int (*send)(void *opaque, unsigned int module, unsigned int port, uint64_t tag,
		    const struct gsim_fabric_write *w, const void *payload);
};

/* Plug in the transport (ops NULL: none); the cable starts disconnected. */
void gsim_fabric_set_remote(struct gsim_fabric *f, const struct gsim_fabric_remote_ops *ops,
			    void *opaque);
/* The cable to the other box came up or went down (NIC_LINK on ports 7..9). */
void gsim_fabric_remote_connected(struct gsim_fabric *f, bool up);
/*
 * The answer to write 'tag' of (module, port): GAUDISIM_NIC_ERR_*. An
 * answer that is not for the port's write in flight is ignored.
 */
void gsim_fabric_remote_done(struct gsim_fabric *f, unsigned int module, unsigned int port,
			     uint64_t tag, int err);
/* A write from the other box for (module, port); returns GAUDISIM_NIC_ERR_*. */
int gsim_fabric_remote_receive(struct gsim_fabric *f, unsigned int module, unsigned int port,
			       const struct gsim_fabric_write *w, const void *payload);

#endif /* GSIM_FABRIC_H */
