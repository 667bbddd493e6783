#include "trace/trace-hw_gaudisim.h"
