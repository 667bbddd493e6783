/*
 * gaudisim: the NIC fabric of one box as a QOM object
 * (-object gaudisim-fabric,id=fab0; devices join it with fabric=fab0).
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef HW_GAUDISIM_FABRIC_H
#define HW_GAUDISIM_FABRIC_H

#include "qom/object.h"

#define TYPE_GAUDISIM_FABRIC "gaudisim-fabric"
OBJECT_DECLARE_SIMPLE_TYPE(GaudisimFabric, GAUDISIM_FABRIC)

struct gsim_fabric;

/* The core's fabric behind the object (BQL held). */
struct gsim_fabric *gaudisim_fabric_core(GaudisimFabric *fab);

#endif /* HW_GAUDISIM_FABRIC_H */
