// Placeholder: the interpreter is being written.
#include "kiln/interp/interpreter.h"
