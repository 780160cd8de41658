Top {{who}}
