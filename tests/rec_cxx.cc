// rec_cxx - a C++ program with std::thread, new and delete, for the
// recorder's real-program tests: operator new and delete reach malloc and
// free through libstdc++, so they must show up in the trace.
//
// The main thread brackets the threaded part with malloc(REC_CXX_BEGIN)
// and malloc(REC_CXX_END), so a tracer's count of marker hits and the
// trace's records can be compared over exactly the same calls; and every
// worker allocates one `new char[REC_CXX_NEW_SIZE]` the test looks for.
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <thread>
#include <vector>

enum { REC_CXX_BEGIN = 0x5e5e1, REC_CXX_END = 0x5e5e2, REC_CXX_NEW_SIZE = 0x5eed };

static void work(int id)
{
	char *marker = new char[REC_CXX_NEW_SIZE];
	marker[0] = (char)id;
	std::map<int, std::string> m;
	for (int i = 0; i < 2000; i++) {
		m[i % 97] = std::string(20 + i % 50, 'x');
		std::vector<int> v(i % 33 + 1, id);
		if (i % 7 == 0)
			m.erase(i % 97);
	}
	delete[] marker;
}

int main()
{
	// volatile: g++ drops a malloc whose block is only freed, even with
	// -fno-builtin; the sentinels must reach the library.
	void *volatile begin = std::malloc(REC_CXX_BEGIN);
	{
		std::vector<std::thread> threads;
		for (int i = 0; i < 4; i++)
			threads.emplace_back(work, i);
		for (auto &t : threads)
			t.join();
	}
	void *volatile end = std::malloc(REC_CXX_END);
	std::free(begin);
	std::free(end);
	std::puts("rec_cxx done");
	return 0;
}
