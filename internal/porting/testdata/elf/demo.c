/* Source of libdemo-*.so, the ELF fixtures of the porting tests:
 *   gcc -shared -fPIC -Os -s -Wl,-z,noseparate-code -o libdemo-x86_64.so demo.c
 *   aarch64-linux-gnu-gcc -shared -fPIC -Os -s -Wl,-z,noseparate-code -Wl,-z,max-page-size=4096 -o libdemo-aarch64.so demo.c
 * getrandom needs GLIBC_2.25, so .gnu.version_r lists it. */
#include <sys/random.h>
#include <string.h>
int demo_fill(void *buf, unsigned long n) {
	memset(buf, 0, n);
	return (int)getrandom(buf, n, 0);
}
