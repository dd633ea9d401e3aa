// Placeholder: the parser is being written.
#include "kiln/parse/parser.h"
