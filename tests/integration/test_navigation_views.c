/* stub */
#include "itest.h"
void register_navigation_views_tests(void) {}
