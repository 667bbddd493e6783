/* SPDX-License-Identifier: MIT */
/*
 * gaudisim hardware contract: data-type codes.
 *
 * The codes are Gaudi's operand data types (the TPC instruction set's
 * OpType numbering), so the MME's DTYPE fields and the TPC's tensor
 * descriptors name a type the same way. Code 6 is Gaudi's BOOL, a TPC
 * predicate type that no memory operand uses; it is kept as a hole so the
 * numbering stays Gaudi's. There is no 64-bit type on the device.
 */
#ifndef GAUDISIM_HW_DTYPES_H
#define GAUDISIM_HW_DTYPES_H

enum gaudisim_dtype {
	GAUDISIM_DTYPE_FP32 = 0,	/* IEEE-754 binary32 */
	GAUDISIM_DTYPE_BF16 = 1,	/* bfloat16: the upper half of a binary32 */
	GAUDISIM_DTYPE_INT32 = 2,
	GAUDISIM_DTYPE_UINT32 = 3,
	GAUDISIM_DTYPE_INT8 = 4,
	GAUDISIM_DTYPE_UINT8 = 5,
	/* 6: Gaudi's BOOL (TPC predicates only), not a memory type */
	GAUDISIM_DTYPE_INT16 = 7,
	GAUDISIM_DTYPE_UINT16 = 8,
	GAUDISIM_DTYPE_COUNT = 9,	/* codes are below this */
};

/* Bytes per element of a memory type, 0 for a code that names none. */
static inline unsigned int gaudisim_dtype_size(unsigned int dtype)
{
	switch (dtype) {
	case GAUDISIM_DTYPE_FP32:
	case GAUDISIM_DTYPE_INT32:
	case GAUDISIM_DTYPE_UINT32:
		return 4;
	case GAUDISIM_DTYPE_BF16:
	case GAUDISIM_DTYPE_INT16:
	case GAUDISIM_DTYPE_UINT16:
		return 2;
	case GAUDISIM_DTYPE_INT8:
	case GAUDISIM_DTYPE_UINT8:
		return 1;
	default:
		return 0;
	}
}

#endif /* GAUDISIM_HW_DTYPES_H */
