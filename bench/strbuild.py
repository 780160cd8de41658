def main():
    s = ""
    for i in range(200000):
        s += "x" + str(i % 10)
    print(len(s))
main()
