/* SPDX-License-Identifier: MIT */
/*
 * gaudisim device core: the fabric of one box (gsim_fabric.h).
 *
 * The fabric is a table of the attached cores by module ID plus the cut
 * state of every cable. Port p (0..6) of module m is cabled to module
 * gaudisim_nic_intra_peer(m, p), which sees it through its port
 * gaudisim_nic_port_to(peer, m); a link is up when both ends are attached
 * and the cable is not cut. Scale-out ports (7..9) go to the same
 * module and port of another box through the transport of
 * gsim_fabric_set_remote(), one write in flight per port. Everything
 * runs on the owner thread of the attached cores.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "gsim_core_internal.h"
#include "gsim_fabric.h"
#include "gsim_nic.h"

struct gsim_fabric {
	struct gsim_core *mod[GAUDISIM_NIC_MAX_MODULES];
	/* cut[m][p]: the cable of port p of module m is cut (both ends set). */
	bool cut[GAUDISIM_NIC_MAX_MODULES][GAUDISIM_NIC_NUM_PORTS];
	/* Scale-out transport, its cable, and the tag of each port's write in flight. */
	const struct gsim_fabric_remote_ops *rops;
	void *ropaque;
	bool remote_up;
	uint64_t next_tag;
	uint64_t inflight[GAUDISIM_NIC_MAX_MODULES][GAUDISIM_NIC_NUM_PORTS];	/* 0: none */
};

struct gsim_fabric *gsim_fabric_new(void)
{
	return calloc(1, sizeof(struct gsim_fabric));
}

void gsim_fabric_free(struct gsim_fabric *f)
{
	unsigned int m;

	if (!f)
		return;
	for (m = 0; m < GAUDISIM_NIC_MAX_MODULES; m++)
		if (f->mod[m])
			gsim_fabric_detach(f, f->mod[m]);
	free(f);
}

/* Module and port at the other end of (m, p) inside the box; false for scale-out. */
static bool far_end(unsigned int m, unsigned int p, unsigned int *pm, unsigned int *pp)
{
	int peer = gaudisim_nic_intra_peer(m, p);

	if (peer < 0)
		return false;
	*pm = (unsigned int)peer;
	*pp = (unsigned int)gaudisim_nic_port_to(*pm, m);
	return true;
}

/*
 * Module m comes or goes: the far ends of its uncut links see them go up
 * or down. Module m itself is told nothing: a device being plugged has no
 * driver listening yet, one being unplugged has none any more.
 */
static void links_changed(struct gsim_fabric *f, unsigned int m, bool up)
{
	unsigned int p, pm, pp;

	for (p = 0; p < GAUDISIM_NIC_INTRA_PORTS; p++) {
		if (!far_end(m, p, &pm, &pp) || !f->mod[pm] || f->cut[m][p])
			continue;
		gsim_nic_link_changed(f->mod[pm], pp, up, m);
	}
}

int gsim_fabric_attach(struct gsim_fabric *f, struct gsim_core *core, unsigned int module_id)
{
	if (!f || !core || module_id >= GAUDISIM_NIC_MAX_MODULES || core->fabric)
		return -EINVAL;
	if (f->mod[module_id])
		return -EBUSY;
	f->mod[module_id] = core;
	core->fabric = f;
	core->module_id = module_id;
	links_changed(f, module_id, true);
	return 0;
}

void gsim_fabric_detach(struct gsim_fabric *f, struct gsim_core *core)
{
	unsigned int m;

	if (!f || !core || core->fabric != f)
		return;
	for (m = 0; m < GAUDISIM_NIC_MAX_MODULES; m++) {
		if (f->mod[m] != core)
			continue;
		links_changed(f, m, false);
		f->mod[m] = NULL;
		memset(f->inflight[m], 0, sizeof(f->inflight[m]));
	}
	core->fabric = NULL;
}

int gsim_fabric_set_link(struct gsim_fabric *f, unsigned int module, unsigned int port, bool up)
{
	unsigned int pm, pp;
	bool live;

	if (!f || module >= GAUDISIM_NIC_MAX_MODULES || port >= GAUDISIM_NIC_NUM_PORTS)
		return -EINVAL;
	if (!far_end(module, port, &pm, &pp)) {
		/* A scale-out cable: the far end is in the other box. */
		if (f->cut[module][port] != up)
			return 0;
		f->cut[module][port] = !up;
		if (f->mod[module] && f->remote_up)
			gsim_nic_link_changed(f->mod[module], port, up, module);
		return 0;
	}
	if (f->cut[module][port] != up)
		return 0;		/* no change */
	live = f->mod[module] && f->mod[pm];
	f->cut[module][port] = !up;
	f->cut[pm][pp] = !up;
	if (live) {
		gsim_nic_link_changed(f->mod[module], port, up, pm);
		gsim_nic_link_changed(f->mod[pm], pp, up, module);
	}
	return 0;
}

bool gsim_fabric_link_cut(const struct gsim_fabric *f, unsigned int module, unsigned int port)
{
	if (!f || module >= GAUDISIM_NIC_MAX_MODULES || port >= GAUDISIM_NIC_NUM_PORTS)
		return false;
	return f->cut[module][port];
}

struct gsim_core *gsim_fabric_peer(struct gsim_core *core, unsigned int port,
				   unsigned int *peer_port)
{
	struct gsim_fabric *f = core->fabric;
	unsigned int m = core->module_id, pm, pp;

	if (!f || port >= GAUDISIM_NIC_NUM_PORTS || f->cut[m][port] ||
	    !far_end(m, port, &pm, &pp) || !f->mod[pm])
		return NULL;
	*peer_port = pp;
	return f->mod[pm];
}

uint32_t gsim_fabric_link_status(struct gsim_core *core, unsigned int port)
{
	struct gsim_fabric *f = core->fabric;
	unsigned int m = core->module_id, pm, pp;
	uint32_t v;

	if (!f)
		return 0;
	if (!far_end(m, port, &pm, &pp)) {
		/* Same module and port in the other box, when cabled. */
		v = GAUDISIM_NIC_LINK_SCALEOUT;
		if (!f->remote_up)
			return v;
		v |= GAUDISIM_NIC_LINK_CABLED | m << GAUDISIM_NIC_LINK_PEER_MODULE_SHIFT |
		     port << GAUDISIM_NIC_LINK_PEER_PORT_SHIFT;
		return f->cut[m][port] ? v : v | GAUDISIM_NIC_LINK_UP;
	}
	if (!f->mod[pm])
		return 0;
	v = GAUDISIM_NIC_LINK_CABLED | pm << GAUDISIM_NIC_LINK_PEER_MODULE_SHIFT |
	    pp << GAUDISIM_NIC_LINK_PEER_PORT_SHIFT;
	if (!f->cut[m][port])
		v |= GAUDISIM_NIC_LINK_UP;
	return v;
}

/* ---- scale-out ------------------------------------------------------------ */

void gsim_fabric_set_remote(struct gsim_fabric *f, const struct gsim_fabric_remote_ops *ops,
			    void *opaque)
{
	gsim_fabric_remote_connected(f, false);
	f->rops = ops;
	f->ropaque = opaque;
}

static bool scaleout_port(unsigned int module, unsigned int port)
{
	return module < GAUDISIM_NIC_MAX_MODULES && port >= GAUDISIM_NIC_FIRST_SCALEOUT &&
	       port < GAUDISIM_NIC_NUM_PORTS;
}

void gsim_fabric_remote_connected(struct gsim_fabric *f, bool up)
{
	unsigned int m, p;

	if (f->remote_up == up)
		return;
	f->remote_up = up;
	for (m = 0; m < GAUDISIM_NIC_MAX_MODULES; m++) {
		for (p = GAUDISIM_NIC_FIRST_SCALEOUT; p < GAUDISIM_NIC_NUM_PORTS; p++) {
			/* Writes on their way get no answer any more. */
			if (!up && f->inflight[m][p])
				gsim_fabric_remote_done(f, m, p, f->inflight[m][p],
							GAUDISIM_NIC_ERR_LINK_DOWN);
			if (f->mod[m] && !f->cut[m][p])
				gsim_nic_link_changed(f->mod[m], p, up, m);
		}
	}
}

int gsim_fabric_remote_send(struct gsim_core *core, unsigned int port,
			    const struct gsim_fabric_write *w, const uint8_t *payload)
{
	struct gsim_fabric *f = core->fabric;
	unsigned int m = core->module_id;
	uint64_t tag;

	if (!f || !f->rops || !f->remote_up || f->cut[m][port])
		return GAUDISIM_NIC_ERR_LINK_DOWN;
	tag = ++f->next_tag;
	if (f->rops->send(f->ropaque, m, port, tag, w, payload))
		return GAUDISIM_NIC_ERR_LINK_DOWN;
	f->inflight[m][port] = tag;
	return GAUDISIM_NIC_ERR_NONE;
}

void gsim_fabric_remote_done(struct gsim_fabric *f, unsigned int module, unsigned int port,
			     uint64_t tag, int err)
{
	if (!f || !scaleout_port(module, port) || !tag || f->inflight[module][port] != tag)
		return;
	f->inflight[module][port] = 0;
	if (f->mod[module])
		gsim_nic_remote_done(f->mod[module], port, err);
}

int gsim_fabric_remote_receive(struct gsim_fabric *f, unsigned int module, unsigned int port,
			       const struct gsim_fabric_write *w, const void *payload)
{
	if (!f || !scaleout_port(module, port))
		return GAUDISIM_NIC_ERR_REMOTE_ACCESS;
	/* No device in that slot, or this end of the cable is cut. */
	if (!f->mod[module] || f->cut[module][port])
		return GAUDISIM_NIC_ERR_LINK_DOWN;
	return gsim_nic_receive(f->mod[module], port, w, payload);
}
