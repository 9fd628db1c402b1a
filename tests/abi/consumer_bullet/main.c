/// Links the installed Bullet adapter and calls into it: the scalar size it was built for
/// (4 for Debian's float Bullet) and a refused attach (NULL def) with its message.
#include <dfm/dfm_bullet.h>
#include <stdio.h>

int main(void) {
    unsigned size = dfm_bullet_scalar_size();
    dfm_bullet* adapter = NULL;
    dfm_result r = dfm_bullet_attach(NULL, &adapter);
    printf("dfm_bullet consumer: btScalar is %u bytes; attach(NULL) -> %s (%s)\n", size, dfm_result_string(r),
           dfm_bullet_last_error(NULL));
    return size == 4 && r != DFM_OK && adapter == NULL ? 0 : 1;
}
