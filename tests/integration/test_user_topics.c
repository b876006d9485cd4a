/* placeholder */
#include "itest.h"
void register_user_topics_tests(void)
{
	static const struct itest_case cases[] = {{NULL, NULL}};
	itest_add_suite("user_topics", cases);
}
