/*
 * report_cxx.cc - C++ new through libstdc++ for t-report-stacks.sh: the
 * stack of each leaked Widget runs through operator new in libstdc++ and
 * must be symbolised to make_widget, the C++ function that asked.
 */
#include <cstdio>

namespace shop {
struct Widget {
	long parts[6];
};

__attribute__((noinline)) Widget *make_widget(int i)
{
	Widget *w = new Widget(); /* SITE: make_widget */
	w->parts[0] = i;
	return w;
}
} // namespace shop

int main()
{
	shop::Widget *kept[4];
	for (int i = 0; i < 4; i++)
		kept[i] = shop::make_widget(i);
	std::printf("%ld\n", kept[3]->parts[0]);
	return 0;
}
