package class_test

const evil = `</script><img src=x onerror=alert(1)>`
