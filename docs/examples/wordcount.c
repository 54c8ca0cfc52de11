/* wordcount.c - counts the words of standard input; never frees its table. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct word { char *text; unsigned count; struct word *next; };
static struct word *table[1024];

static struct word *lookup(const char *text)
{
	unsigned h = 0;
	for (const char *p = text; *p; p++)
		h = h * 31 + (unsigned char)*p;
	struct word **slot = &table[h % 1024], *w;
	for (w = *slot; w && strcmp(w->text, text); w = w->next);
	if (!w) {
		w = calloc(1, sizeof *w);
		w->text = strdup(text);
		w->next = *slot;
		*slot = w;
	}
	return w;
}

int main(void)
{
	char buf[256];
	while (scanf("%255s", buf) == 1)
		lookup(buf)->count++;
	unsigned n = 0;
	for (int i = 0; i < 1024; i++)
		for (struct word *w = table[i]; w; w = w->next)
			n++;
	printf("%u distinct words\n", n);
	return 0;
}
