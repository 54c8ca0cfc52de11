# real_programs.sh - the programs of bench/real.sh's corpus: what each one
# is, what it needs, how it makes its input, and how it runs.  Sourced by
# real.sh, which sets $scale (1 for the full run; --quick divides the
# inputs by 4) and runs each step in the program's own directory.
#
# Every program is Debian's (scripts/deps.sh bench installs them) and makes
# its own input: nothing is downloaded.  Sizes are chosen so that each
# program runs a few seconds untraced on a quiet 2-core machine and makes
# about 10 M malloc-family calls or more; git and zstd make fewer, bigger
# ones, as such programs do.  For each NAME:
#   about_NAME        one line: the program, its input, its threads
#   missing_NAME      prints what is missing (empty when it can run)
#   setup_NAME        makes the input in the current directory
#   run_NAME [WRAP]   runs the program, behind WRAP (mtrace-record ... --)
#                     when given; standard output goes where real.sh says
# shellcheck shell=sh

corpus="cc1 cc1plus python pythreads pytasks perl sqlite git zstd"

# pick_programs OPTION LIST: sets $programs to the comma-separated LIST
# (given with OPTION), or to the whole corpus when LIST is empty; dies on a
# name not in it.
pick_programs() {
	programs=$corpus
	[ -n "$2" ] || return 0
	programs=$(echo "$2" | tr ',' ' ')
	for p in $programs; do
		case " $corpus " in *" $p "*) ;; *) die "$1: no program '$p' (there are: $corpus)" ;; esac
	done
}

# scaled N: N for the full run, N/4 (at least 1) with --quick, N/$scale.
scaled() { echo $(($1 / scale > 0 ? $1 / scale : 1)); }

# have PROGRAM PACKAGE: prints what to install when PROGRAM is missing.
have() { command -v "$1" >/dev/null 2>&1 || echo "$1 (Debian package $2)"; }

about_cc1() { echo "gcc 12 cc1 -O2 on $(scaled 520) generated C functions (1 thread)"; }
missing_cc1() { [ -x "$(gcc -print-prog-name=cc1 2>/dev/null)" ] || echo "cc1 (Debian package gcc)"; }
setup_cc1() {
	# Each function: a struct of its own, a loop around a 7-way switch,
	# and a call to the previous one, so the optimisers have work.
	awk -v n="$(scaled 520)" 'BEGIN {
		print "void *calloc(unsigned long, unsigned long);"
		print "void free(void *);"
		print "unsigned long strlen(const char *);"
		for (i = 0; i < n; i++) {
			printf "struct s%d { int a[%d]; double d; struct s%d *next; char name[%d]; };\n",
				i, 4 + i % 13, i, 8 + i % 5
			printf "static int f%d(int x, struct s%d *s)\n{\n\tint acc = x, i;\n", i, i
			printf "\tfor (i = 0; i < %d; i++) {\n\t\tswitch ((acc + i) %% 7) {\n", 8 + i % 9
			for (c = 0; c < 7; c++)
				printf "\t\tcase %d: acc = acc * %d + s->a[i %% %d] - (int)s->d; break;\n",
					c, c + 3, 4 + i % 13
			printf "\t\t}\n\t\tif (s->next && acc %% %d == 0)\n", 5 + i % 11
			printf "\t\t\tacc += s->next->a[0];\n\t}\n"
			printf "\tif (acc > %d)\n\t\tacc -= (int)strlen(s->name);\n", 1000 + i
			if (i > 0)
				printf "\treturn acc + (x > 3 ? f%d(x - 1, (struct s%d *)s->next) : 0);\n}\n",
					i - 1, i - 1
			else
				printf "\treturn acc;\n}\n"
		}
		printf "int run(int x)\n{\n\tstruct s%d *s = calloc(1, sizeof *s);\n", n - 1
		printf "\tint r = f%d(x, s);\n\tfree(s);\n\treturn r;\n}\n", n - 1
	}' >big.c
}
run_cc1() { "$@" "$(gcc -print-prog-name=cc1)" -quiet -O2 big.c -o big.s; }

about_cc1plus() {
	echo "g++ 12 cc1plus -O1 on $(scaled 30) generated classes using map, vector, sort, shared_ptr (1 thread)"
}
missing_cc1plus() {
	[ -x "$(g++ -print-prog-name=cc1plus 2>/dev/null)" ] || echo "cc1plus (Debian package g++)"
}
setup_cc1plus() {
	# Every class instantiates the standard containers and algorithms
	# anew; the preprocessing (headers) is done here, untimed.
	awk -v n="$(scaled 30)" 'BEGIN {
		print "#include <algorithm>\n#include <map>\n#include <memory>\n#include <string>"
		print "#include <unordered_map>\n#include <vector>"
		for (i = 0; i < n; i++) {
			printf "struct T%d {\n\tstd::string name;\n\tstd::vector<int> v;\n", i
			printf "\tstd::map<std::string, long> m;\n"
			printf "\tbool operator<(const T%d &o) const { return name < o.name; }\n};\n", i
			printf "template <typename K> struct Box%d {\n", i
			printf "\tstd::unordered_map<K, std::vector<T%d>> by;\n\tstd::shared_ptr<T%d> first;\n};\n", i, i
			printf "long use%d(int k)\n{\n\tstd::map<std::string, T%d> m;\n\tstd::vector<T%d> v(k);\n", i, i, i
			printf "\tstd::sort(v.begin(), v.end());\n\tBox%d<int> b;\n\tb.by[k].push_back(T%d{});\n", i, i
			printf "\tb.first = std::make_shared<T%d>();\n\tm[\"k\" + std::to_string(k)] = v.front();\n", i
			printf "\tauto it = std::find_if(v.begin(), v.end(),\n"
			printf "\t\t[k](const T%d &t) { return (long)t.v.size() == k; });\n", i
			printf "\treturn (long)m.size() + (it != v.end()) + (long)b.by.size();\n}\n"
		}
	}' >big.cc
	g++ -E big.cc -o big.ii
}
run_cc1plus() { "$@" "$(g++ -print-prog-name=cc1plus)" -quiet -fpreprocessed -O1 big.ii -o big.s; }

# Debian's interpreter, not whatever python3 is first on PATH (a pyenv
# shim, a build of its own).
about_python() {
	echo "Debian's python3 (PYTHONMALLOC=malloc): $(scaled 60000) dicts JSON-encoded and decoded 4 times (1 thread)"
}
missing_python() { [ -x /usr/bin/python3 ] || echo "/usr/bin/python3 (Debian package python3)"; }
setup_python() {
	cat >work.py <<'EOF'
import json, sys
n = int(sys.argv[1])
rows = [{"id": i, "name": "item%d" % i, "tags": ["t%d" % (i % 7), "u%d" % (i % 11)],
         "pos": {"x": i * 0.5, "y": -i}} for i in range(n)]
for _ in range(4):
    text = json.dumps(rows)
    rows = json.loads(text)
print(len(text))
EOF
}
run_python() { PYTHONMALLOC=malloc "$@" /usr/bin/python3 work.py "$(scaled 60000)"; }

# Many threads handing blocks to one another, as a server's thread pool
# does: each of 4 producers makes dicts that one of 4 consumers JSON-encodes
# and drops, so most blocks are freed by a thread that did not allocate
# them; the GIL switches threads every few milliseconds.
about_pythreads() {
	echo "Debian's python3 (PYTHONMALLOC=malloc): 4 producer threads hand $(scaled 120000) dicts through a queue to 4 consumers that JSON-encode them (8 threads)"
}
missing_pythreads() { missing_python; }
setup_pythreads() {
	cat >work.py <<'EOF'
import json, queue, sys, threading
n = int(sys.argv[1]) // 4
q = queue.Queue(maxsize=2000)
done = []
def produce(seed):
    for i in range(n):
        q.put({"id": i, "name": "item%d-%d" % (seed, i), "tags": ["t%d" % (i % 7), "u%d" % (i % 11)],
               "pos": {"x": i * 0.5, "y": -i}})
def consume():
    total = 0
    while True:
        row = q.get()
        if row is None:
            break
        total += len(json.dumps(row)) + len(json.loads(json.dumps(row["tags"])))
    done.append(total)
producers = [threading.Thread(target=produce, args=(s,)) for s in range(4)]
consumers = [threading.Thread(target=consume) for _ in range(4)]
for t in producers + consumers:
    t.start()
for t in producers:
    t.join()
for _ in consumers:
    q.put(None)
for t in consumers:
    t.join()
print(sum(done))
EOF
}
run_pythreads() { PYTHONMALLOC=malloc "$@" /usr/bin/python3 work.py "$(scaled 120000)"; }

about_pytasks() {
	echo "Debian's python3 (PYTHONMALLOC=malloc): a thread started and joined for each of $(scaled 3000) tasks, each JSON-encoding and decoding 100 dicts ($(scaled 3000) threads in turn)"
}
missing_pytasks() { missing_python; }
setup_pytasks() {
	cat >work.py <<'EOF'
import json, sys, threading
def task(i):
    rows = [{"id": j, "name": "task%d-%d" % (i, j), "tags": ["t%d" % (j % 7)]} for j in range(100)]
    json.loads(json.dumps(rows))
for i in range(int(sys.argv[1])):
    t = threading.Thread(target=task, args=(i,))
    t.start()
    t.join()
EOF
}
run_pytasks() { PYTHONMALLOC=malloc "$@" /usr/bin/python3 work.py "$(scaled 3000)"; }

about_perl() {
	echo "perl 5.36, 2 interpreter threads each filling, sorting and clearing a hash of $(scaled 150000) keys (2 threads)"
}
missing_perl() { perl -Mthreads -e 1 2>/dev/null || echo "perl with threads (Debian package perl)"; }
setup_perl() {
	cat >work.pl <<'EOF'
use strict; use warnings; use threads;
my $n = shift;
sub work {
	my ($seed) = @_;
	my %h; my $total = 0;
	for my $round (1 .. 4) {
		for my $i (1 .. $n) {
			my $k = "key" . (($i * 7919 + $seed) % $n);
			$h{$k} = [ $i, "v$i" x 2, { r => $round } ];
		}
		my @keys = sort keys %h;
		$total += scalar(@keys);
		$total += length join(",", map { $h{$_}[1] } @keys[0 .. 999]);
		%h = () if $round % 2 == 0;
	}
	return $total;
}
my @t = map { threads->create(\&work, $_) } 1 .. 2;
my $sum = 0;
$sum += $_->join for @t;
print "$sum\n";
EOF
}
run_perl() { "$@" perl work.pl "$(scaled 150000)"; }

about_sqlite() {
	echo "sqlite3 3.40 CLI, in-memory database: $(scaled 1500000) rows inserted, 2 indexes, joins, group-bys, an update (1 thread)"
}
missing_sqlite() { have sqlite3 sqlite3; }
setup_sqlite() {
	cat >work.sql <<EOF
CREATE TABLE t(id INTEGER PRIMARY KEY, grp INTEGER, name TEXT, val REAL);
INSERT INTO t(grp, name, val)
  WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < $(scaled 1500000))
  SELECT i % 1000, 'name-' || (i * 7919 % $(scaled 1500000)), i * 0.25 FROM c;
CREATE INDEX t_name ON t(name);
CREATE INDEX t_grp ON t(grp, val);
SELECT grp, count(*), sum(val) FROM t GROUP BY grp ORDER BY 3 DESC LIMIT 3;
SELECT count(DISTINCT name) FROM t;
SELECT count(*) FROM t a JOIN t b ON a.name = b.name WHERE a.grp < 50;
UPDATE t SET name = name || '-x' WHERE grp % 3 = 0;
SELECT name, count(*) FROM t GROUP BY substr(name, 1, 8) ORDER BY 2 DESC LIMIT 2;
EOF
}
run_sqlite() { "$@" sqlite3 :memory: <work.sql; }

# git's history is not scaled below its full size: a quarter of it (750
# commits, 434,000 calls) replays in 0.04 s, where starting three threads
# and the shared clock's ~1,400 waits are most of trace_run's figures a
# call, from 7 to 80 ns of waits run to run (docs/BENCHMARKS.md).  It
# costs --quick ~2 s of CPU time more.  Runs that replay nothing (real.sh's
# callgrind runs) set scale_git=1 and divide it too.
git_commits() { if [ "${scale_git:-0}" = 1 ]; then scaled 3000; else echo 3000; fi; }
about_git() {
	echo "git 2.39 pack-objects --threads=2 --no-reuse-delta: a generated repository of $(git_commits) commits (2 threads)"
}
missing_git() { have git git; }
setup_git() {
	# A history that touches 3 of 400 files per commit, each a small change
	# to the file's previous version: deltas for pack-objects to find.
	git init -q repo
	awk -v commits="$(git_commits)" -v files=400 'BEGIN {
		srand(7)
		for (c = 1; c <= commits; c++) {
			printf "commit refs/heads/main\nmark :%d\n", c
			printf "committer Bench <bench@example.org> %d +0000\n", 1700000000 + c
			printf "data <<EOM\nchange %d\nEOM\n", c
			if (c > 1)
				printf "from :%d\n", c - 1
			for (k = 0; k < 3; k++) {
				f = int(rand() * files)
				body = ""
				for (l = 0; l < 40; l++)
					body = body sprintf("line %d of file %d, version %d: %d\n",
						l, f, c, l == c % 40 ? c : l * f)
				printf "M 644 inline dir%d/file%d.txt\ndata %d\n%s\n", f % 20, f, length(body), body
			}
		}
	}' | git -C repo fast-import --quiet
}
run_git() {
	(cd repo && "$@" git pack-objects --all --threads=2 --no-reuse-delta --no-reuse-object \
		--window=20 --stdout </dev/null)
}

about_zstd() { echo "zstd 1.5 -T2 -12 on $(scaled 20) MB of generated CSV (2 worker threads; few, large blocks)"; }
missing_zstd() { have zstd zstd; }
setup_zstd() {
	awk -v n="$(scaled 600000)" 'BEGIN {
		for (i = 0; i < n; i++)
			printf "%d,item-%d,%s,%.3f\n", i, (i * 7919) % 100003, i % 3 ? "alpha" : "beta", i / 7
	}' >data.csv
}
run_zstd() { "$@" zstd -q -T2 -12 -c data.csv; }
