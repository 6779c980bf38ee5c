#include "engine/model/config.h"
